//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what two-pass mean and variance (same formula) with __shfl_down_sync warp sums and a shared slot per warp, gamma/beta through __ldg
//@@ before
__device__ __forceinline__ float warp_sum_down(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float block_sum_bcast(float v, float* red) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  v = warp_sum_down(v);
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
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[c];
  const float mean = block_sum_bcast(s, red) / cols;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = x[c] - mean;
    v += d * d;
  }
  const float rstd = rsqrtf(block_sum_bcast(v, red) / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean) * rstd * __ldg(gamma + c) + __ldg(beta + c);
}
