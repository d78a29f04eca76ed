//@app tiles.cu
//@kernel matmul_rb
//@what register blocking: a thread computes two rows of its column and reuses each b element from a register
__global__ void matmul_rb(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  if (threadIdx.y >= 8) return;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row0 = blockIdx.y * blockDim.y + 2 * threadIdx.y;
  if (col >= n) return;
  bool two = row0 + 1 < n;
  if (row0 >= n) return;
  float acc0 = 0.0f, acc1 = 0.0f;
  for (int k = 0; k < n; ++k) {
    float bv = b[k * n + col];
    acc0 += a[row0 * n + k] * bv;
    if (two) acc1 += a[(row0 + 1) * n + k] * bv;
  }
  c[row0 * n + col] = acc0;
  if (two) c[(row0 + 1) * n + col] = acc1;
}
