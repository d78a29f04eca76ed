//@app tiles.cu
//@kernel transpose
//@what transpose_tiled written as hand-tuned code usually is: the tile's shape as new macros and its padding as a new constexpr constant beside the kernel
#define TILE_W 32
#define TILE_H 8
constexpr int kPad = 1;  // one spare column: a column of the tile falls in 32 different banks
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE_H][TILE_W + kPad];
  int c = blockIdx.x * TILE_W + threadIdx.x;
  int r0 = blockIdx.y * TILE_H;
  for (int j = threadIdx.y; j < TILE_H; j += blockDim.y)
    if (r0 + j < rows && c < cols) tile[j][threadIdx.x] = in[(size_t)(r0 + j) * cols + c];
  __syncthreads();
  int tid = threadIdx.y * TILE_W + threadIdx.x;
  int oc = tid % TILE_H, orow = tid / TILE_H;
  int out_row = blockIdx.x * TILE_W + orow, out_col = r0 + oc;
  if (out_row < cols && out_col < rows) out[(size_t)out_row * rows + out_col] = tile[oc][orow];
}
