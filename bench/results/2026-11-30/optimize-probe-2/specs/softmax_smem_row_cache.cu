//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what the row cached in a 16 KiB static shared array when it fits (read once from global through __ldg), warp-shuffle reductions, #pragma unroll 4
//@@ before
#define SOFTMAX_CACHE_COLS 4096
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float xs[SOFTMAX_CACHE_COLS];
  __shared__ float red[32];
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  const bool cached = cols <= SOFTMAX_CACHE_COLS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  float m = -INFINITY;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = __ldg(x + c);
    if (cached) xs[c] = v;
    m = fmaxf(m, v);
  }
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, o));
  if (lane == 0) red[warp] = m;
  __syncthreads();
  m = red[0];
  for (int w = 1; w < nwarps; ++w) m = fmaxf(m, red[w]);
  __syncthreads();
  float s = 0.0f;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf((cached ? xs[c] : __ldg(x + c)) - m);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  s = 0.0f;
  for (int w = 0; w < nwarps; ++w) s += red[w];
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf((cached ? xs[c] : __ldg(x + c)) - m) / s;
}
//@@ after
#undef SOFTMAX_CACHE_COLS
