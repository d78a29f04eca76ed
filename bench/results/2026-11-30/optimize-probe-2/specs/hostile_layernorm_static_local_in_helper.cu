//@app softmax.cu
//@kernel layernorm_rows
//@expect reject
//@what HOSTILE: a function-local static in a new __device__ helper (global memory that outlives the launch) remembers the mean of row 0 across launches
//@@ before
__device__ float remembered_mean(float fresh, bool first_row) {
  static float cached = 0.0f;
  static bool valid = false;
  if (valid && first_row) return cached;
  if (first_row) cached = fresh, valid = true;
  return fresh;
}
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float mean_s;
  __shared__ float rstd_s;
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += x[c];
    const float mean = remembered_mean(s / cols, row == 0);
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v += (x[c] - mean) * (x[c] - mean);
    mean_s = mean;
    rstd_s = rsqrtf(v / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean_s) * rstd_s * gamma[c] + beta[c];
}
