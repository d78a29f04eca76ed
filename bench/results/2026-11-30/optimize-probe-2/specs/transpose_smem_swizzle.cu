//@app grid.cu
//@kernel transpose_naive
//@expect admit
//@what 32x32 shared tile with an XOR swizzle of the column (no padding, no bank conflicts), __launch_bounds__(1024), a swizzle helper
//@@ before
__device__ __forceinline__ int swz(int row, int col) { return col ^ (row & 31); }
//@@ kernel
__global__ void __launch_bounds__(1024) transpose_naive(const float* __restrict__ a, float* __restrict__ at, int rows, int cols) {
  __shared__ float tile[32][32];
  const int bx = blockIdx.x * 32, by = blockIdx.y * 32;
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x != 32 || blockDim.y != 32) {
    const int c = blockIdx.x * blockDim.x + tx, r = blockIdx.y * blockDim.y + ty;
    if (r < rows && c < cols) at[(size_t)c * rows + r] = a[(size_t)r * cols + c];
    return;
  }
  if (by + ty < rows && bx + tx < cols) tile[ty][swz(ty, tx)] = a[(size_t)(by + ty) * cols + bx + tx];
  __syncthreads();
  if (bx + ty < cols && by + tx < rows) at[(size_t)(bx + ty) * rows + by + tx] = tile[tx][swz(tx, ty)];
}
