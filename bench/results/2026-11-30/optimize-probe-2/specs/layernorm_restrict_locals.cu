//@app softmax.cu
//@kernel layernorm_rows
//@expect admit
//@what const __restrict__ local aliases of the row, gamma and beta (the signature unchanged), stats through warp shuffles, the row's normalisation fused as one fmaf
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float red[32];
  __shared__ float stats[2];
  const int row = blockIdx.x;
  const float* __restrict__ x = in + (size_t)row * cols;
  const float* __restrict__ g = gamma;
  const float* __restrict__ b = beta;
  float* __restrict__ o = out + (size_t)row * cols;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[c];
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < nwarps; ++w) t += red[w];
    stats[0] = t / cols;
  }
  __syncthreads();
  const float mean = stats[0];
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v += (x[c] - mean) * (x[c] - mean);
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  if (lane == 0) red[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < nwarps; ++w) t += red[w];
    stats[1] = rsqrtf(t / cols + eps);
  }
  __syncthreads();
  const float rstd = stats[1];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) o[c] = (x[c] - mean) * rstd * g[c] + b[c];
}
