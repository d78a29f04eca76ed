//@app app.hip
//@kernel transpose
//@what a 16x16 tile through LDS, padded against bank conflicts, so both reads and writes are coalesced
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
  constexpr int kTile = 16;
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * w + x];
  __syncthreads();
  int tx = blockIdx.y * kTile + threadIdx.x, ty = blockIdx.x * kTile + threadIdx.y;
  if (tx < h && ty < w) out[(size_t)ty * h + tx] = tile[threadIdx.x][threadIdx.y];
}
