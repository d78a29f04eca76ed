//@app softmax.cu
//@kernel softmax_rows
//@expect reject
//@what HOSTILE: the docs' macro_redefines_math class (#define expf __expf: fast, less precise exp in the kernel and everywhere after) placed directly before the forward declaration of a new helper
//@@ before
#define expf __expf
__device__ float probe_row_max(const float* x, int cols);
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float row_max;
  __shared__ float row_sum;
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  if (threadIdx.x == 0) {
    const float m = probe_row_max(x, cols);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
    row_max = m;
    row_sum = s;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - row_max) / row_sum;
}
//@@ after
__device__ float probe_row_max(const float* x, int cols) {
  float m = x[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
  return m;
}
