//@app tiles.cu
//@kernel matmul
//@what matmul_tiled with the tile size as a new macro and the two shared tiles in a new struct type beside the kernel (bit-exact)
#define MM_TILE 16
struct MatmulTiles {
  float a[MM_TILE][MM_TILE];
  float b[MM_TILE][MM_TILE];
};
__global__ void matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ MatmulTiles t;
  int col = blockIdx.x * MM_TILE + threadIdx.x;
  int row = blockIdx.y * MM_TILE + threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += MM_TILE) {
    t.a[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0.0f;
    t.b[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    int kmax = min(MM_TILE, n - k0);
    for (int k = 0; k < kmax; ++k) acc += t.a[threadIdx.y][k] * t.b[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}
