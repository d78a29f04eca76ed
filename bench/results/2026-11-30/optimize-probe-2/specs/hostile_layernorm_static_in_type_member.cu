//@app softmax.cu
//@kernel layernorm_rows
//@expect reject
//@what HOSTILE: state that outlives a launch hidden in a static local of a new struct's member function (remembers row 0's mean across launches)
//@@ before
struct LnMemo {
  __device__ static float& slot() {
    static float remembered = 0.0f;
    return remembered;
  }
};
//@@ kernel
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float mean_s;
  __shared__ float rstd_s;
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += x[c];
    float mean = s / cols;
    if (row == 0) {
      if (LnMemo::slot() != 0.0f) mean = LnMemo::slot();
      else LnMemo::slot() = mean;
    }
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v += (x[c] - mean) * (x[c] - mean);
    mean_s = mean;
    rstd_s = rsqrtf(v / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean_s) * rstd_s * gamma[c] + beta[c];
}
