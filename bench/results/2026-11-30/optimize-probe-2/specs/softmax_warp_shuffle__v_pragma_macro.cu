//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what [style of softmax_warp_shuffle] the unroll pragmas spelled through a new macro using _Pragma; block max and sum through __shfl_xor_sync butterflies and one shared slot per warp; __launch_bounds__(256) added
//@@ before
#define SM_UNROLL _Pragma("unroll")
//@@ kernel
__global__ void __launch_bounds__(256) softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float red[32];
  __shared__ float bcast;
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
SM_UNROLL
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (lane == 0) red[warp] = m;
  __syncthreads();
  if (warp == 0) {
    float v = lane < nwarps ? red[lane] : -INFINITY;
SM_UNROLL
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) bcast = v;
  }
  __syncthreads();
  m = bcast;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
SM_UNROLL
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  if (warp == 0) {
    float v = lane < nwarps ? red[lane] : 0.0f;
SM_UNROLL
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) bcast = v;
  }
  __syncthreads();
  const float sum = bcast;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / sum;
}
