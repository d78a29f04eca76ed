//@app softmax.cu
//@kernel softmax_rows
//@expect reject
//@what HOSTILE: a new file-scope __device__ counter; from the second launch on the kernel returns at once (caches across launches; the output of launch 1 is still in the buffer)
//@@ before
__device__ unsigned int g_softmax_launches = 0;
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float row_max;
  __shared__ float row_sum;
  const int row = blockIdx.x;
  if (row >= rows) return;
  if (g_softmax_launches > 0) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  if (threadIdx.x == 0) {
    float m = x[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
    row_max = m;
    row_sum = s;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - row_max) / row_sum;
  if (row == rows - 1 && threadIdx.x == 0) g_softmax_launches = 1;
}
