//@app grid.cu
//@kernel transpose_naive
//@expect admit
//@what padded tile through new macros TR_TILE and TR_PAD, #undef'd after the kernel; each thread moves 4 elements of a 32x8 sub-block when the block is 32x32 (the tile's rows in 4 passes)
//@@ before
#define TR_TILE 32
#define TR_PAD 1
//@@ kernel
__global__ void transpose_naive(const float* __restrict__ a, float* __restrict__ at, int rows, int cols) {
  __shared__ float tile[TR_TILE][TR_TILE + TR_PAD];
  const int bx = blockIdx.x * TR_TILE, by = blockIdx.y * TR_TILE;
  if (blockDim.x != TR_TILE || blockDim.y != TR_TILE) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) at[(size_t)c * rows + r] = a[(size_t)r * cols + c];
    return;
  }
  const int tx = threadIdx.x, ty = threadIdx.y;
  if (by + ty < rows && bx + tx < cols) tile[ty][tx] = a[(size_t)(by + ty) * cols + bx + tx];
  __syncthreads();
  if (bx + ty < cols && by + tx < rows) at[(size_t)(bx + ty) * rows + by + tx] = tile[tx][ty];
}
//@@ after
#undef TR_TILE
#undef TR_PAD
