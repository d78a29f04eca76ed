//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what [style of softmax_warp_shuffle] the block reduction helpers declared before the kernel, defined after it
//@@ before
__device__ float block_max_bcast(float v, float* red, float* bcast);
__device__ float block_sum_bcast(float v, float* red, float* bcast);
//@@ kernel
__global__ void __launch_bounds__(256) softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float red[32];
  __shared__ float bcast;
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  m = block_max_bcast(m, red, &bcast);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(x[c] - m);
  s = block_sum_bcast(s, red, &bcast);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - m) / s;
}
//@@ after

__device__ float block_max_bcast(float v, float* red, float* bcast) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < nwarps ? red[lane] : -INFINITY;
    for (int o = 16; o > 0; o >>= 1) w = fmaxf(w, __shfl_xor_sync(0xffffffffu, w, o));
    if (lane == 0) *bcast = w;
  }
  __syncthreads();
  return *bcast;
}

__device__ float block_sum_bcast(float v, float* red, float* bcast) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < nwarps ? red[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) w += __shfl_xor_sync(0xffffffffu, w, o);
    if (lane == 0) *bcast = w;
  }
  __syncthreads();
  return *bcast;
}
