//@app softmax.cu
//@kernel layernorm_rows
//@expect reject
//@what HOSTILE (by the specification): a new file-scope __constant__ table of gamma's first values (new device data)
//@@ before
__constant__ float c_gamma_head[32];
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float mean_s;
  __shared__ float rstd_s;
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += x[c];
    const float mean = s / cols;
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v += (x[c] - mean) * (x[c] - mean);
    mean_s = mean;
    rstd_s = rsqrtf(v / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean_s) * rstd_s * (c < 32 && c_gamma_head[c] != 0.0f ? c_gamma_head[c] : gamma[c]) + beta[c];
}
