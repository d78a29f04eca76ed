//@app grid.cu
//@kernel transpose_naive
//@expect admit
//@what [style of transpose_smem_padded] CRLF line endings inside the kernel region only (mixed endings, as an editor leaves them); 32x33 padded shared tile: coalesced reads and writes, no bank conflicts (bit-exact)
//@transform crlf_kernel
//@@ kernel
__global__ void transpose_naive(const float* __restrict__ a, float* __restrict__ at, int rows, int cols) {
  __shared__ float tile[32][33];
  const int bx = blockIdx.x * 32, by = blockIdx.y * 32;
  if (blockDim.x == 32 && blockDim.y == 32) {
    const int c = bx + threadIdx.x, r = by + threadIdx.y;
    if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = a[(size_t)r * cols + c];
    __syncthreads();
    const int oc = by + threadIdx.x, orow = bx + threadIdx.y;
    if (orow < cols && oc < rows) at[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
    return;
  }
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) at[(size_t)c * rows + r] = a[(size_t)r * cols + c];
}
