//@app grid.cu
//@kernel transpose_naive
//@expect admit
//@what padded tile, __launch_bounds__(1024, 2) (launch uses 1024 threads), 64-bit index math hoisted, __restrict__ local aliases
//@@ kernel
__global__ void __launch_bounds__(1024, 2) transpose_naive(const float* __restrict__ a, float* __restrict__ at, int rows, int cols) {
  __shared__ float tile[32][32 + 1];
  const float* __restrict__ src = a;
  float* __restrict__ dst = at;
  const int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 32 + threadIdx.y;
  if (blockDim.x != 32 || blockDim.y != 32) {
    const int c2 = blockIdx.x * blockDim.x + threadIdx.x, r2 = blockIdx.y * blockDim.y + threadIdx.y;
    if (r2 < rows && c2 < cols) dst[(size_t)c2 * rows + r2] = src[(size_t)r2 * cols + c2];
    return;
  }
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = src[(size_t)r * cols + c];
  __syncthreads();
  const int oc = blockIdx.y * 32 + threadIdx.x, orow = blockIdx.x * 32 + threadIdx.y;
  if (orow < cols && oc < rows) dst[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}
