//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what the row kept in a static shared array when it fits (read from global once), deviations kept in the cache, constexpr capacity and static_assert
//@@ before
constexpr int kLnCacheCols = 2048;
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  static_assert(kLnCacheCols % 32 == 0, "cache a whole number of warps");
  __shared__ float xs[kLnCacheCols];
  __shared__ float red[32];
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  const bool cached = cols <= kLnCacheCols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = x[c];
    if (cached) xs[c] = v;
    s += v;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  s = 0.0f;
  for (int w = 0; w < nwarps; ++w) s += red[w];
  const float mean = s / cols;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = (cached ? xs[c] : x[c]) - mean;
    v += d * d;
  }
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  __syncthreads();
  if (lane == 0) red[warp] = v;
  __syncthreads();
  v = 0.0f;
  for (int w = 0; w < nwarps; ++w) v += red[w];
  const float rstd = rsqrtf(v / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = ((cached ? xs[c] : x[c]) - mean) * rstd * gamma[c] + beta[c];
}
