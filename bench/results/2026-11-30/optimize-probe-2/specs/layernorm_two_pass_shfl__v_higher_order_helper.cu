//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what [style of layernorm_two_pass_shfl] a higher-order helper template (for_each_col(cols, f)) called with lambdas for the three row passes
//@@ before
template <typename F>
__device__ __forceinline__ void for_each_col(int cols, F&& f) {
  for (int c = threadIdx.x; c < cols; c += blockDim.x) f(c);
}

__device__ __forceinline__ float block_sum_bcast(float v, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  float r = 0.0f;
  for (int w = 0; w < nwarps; ++w) r += red[w];
  return r;
}
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float red[32];
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  float* o = out + (size_t)row * cols;
  float s = 0.0f;
  for_each_col(cols, [&](int c) { s += x[c]; });
  const float mean = block_sum_bcast(s, red) / cols;
  float v = 0.0f;
  for_each_col(cols, [&](int c) { v += (x[c] - mean) * (x[c] - mean); });
  const float rstd = rsqrtf(block_sum_bcast(v, red) / cols + eps);
  for_each_col(cols, [&](int c) { o[c] = (x[c] - mean) * rstd * gamma[c] + beta[c]; });
}
