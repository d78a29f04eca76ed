//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what exp through exp2f of a log2(e)-scaled argument (math_constants.h CUDART_L2E_F), the reciprocal of the sum taken once; ulp-level differences only
//@@ includes
#include <math_constants.h>
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float red[32];
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  float m = -CUDART_INF_F;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, x[c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (lane == 0) red[warp] = m;
  __syncthreads();
  m = red[0];
  for (int w = 1; w < nwarps; ++w) m = fmaxf(m, red[w]);
  __syncthreads();
  const float ms = m * CUDART_L2E_F;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += exp2f(fmaf(x[c], CUDART_L2E_F, -ms));
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  s = 0.0f;
  for (int w = 0; w < nwarps; ++w) s += red[w];
  const float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = exp2f(fmaf(x[c], CUDART_L2E_F, -ms)) * inv;
}
