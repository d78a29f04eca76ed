//@app softmax.cu
//@kernel layernorm_rows
//@expect reject
//@what HOSTILE: #define __syncthreads() as nothing (the barrier removed: a race the kernel's text does not show), placed right before the forward declaration of a new helper; the kernel's own text keeps __syncthreads()
//@@ before
#define __syncthreads()
__device__ float ln_row_sum(const float* x, int cols);
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float mean_s;
  __shared__ float rstd_s;
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  if (threadIdx.x == 0) {
    const float mean = ln_row_sum(x, cols) / cols;
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v += (x[c] - mean) * (x[c] - mean);
    mean_s = mean;
    rstd_s = rsqrtf(v / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean_s) * rstd_s * gamma[c] + beta[c];
}
//@@ after
__device__ float ln_row_sum(const float* x, int cols) {
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += x[c];
  return s;
}
