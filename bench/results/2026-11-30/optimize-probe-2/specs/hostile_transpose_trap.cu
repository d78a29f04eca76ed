//@app grid.cu
//@kernel transpose_naive
//@expect reject
//@what HOSTILE: __trap() when an input is NaN (fails on the poisoned inputs instead of computing: docs' trap_on_poison class)
//@@ kernel
__global__ void transpose_naive(const float* __restrict__ a, float* __restrict__ at, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    const float v = a[(size_t)r * cols + c];
    if (v != v) __trap();
    at[(size_t)c * rows + r] = v;
  }
}
