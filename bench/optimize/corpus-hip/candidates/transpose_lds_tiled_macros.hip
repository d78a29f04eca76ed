//@app app.hip
//@kernel transpose
//@what transpose_lds_tiled with the tile's side as a new macro and its padding as a new constexpr constant beside the kernel
#define LDS_TILE 16
constexpr int kLdsPad = 1;  // one spare column: a column of the tile falls in different LDS banks
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
  __shared__ float tile[LDS_TILE][LDS_TILE + kLdsPad];
  int x = blockIdx.x * LDS_TILE + threadIdx.x, y = blockIdx.y * LDS_TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * w + x];
  __syncthreads();
  int tx = blockIdx.y * LDS_TILE + threadIdx.x, ty = blockIdx.x * LDS_TILE + threadIdx.y;
  if (tx < h && ty < w) out[(size_t)ty * h + tx] = tile[threadIdx.x][threadIdx.y];
}
