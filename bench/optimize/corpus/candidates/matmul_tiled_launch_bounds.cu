//@app tiles.cu
//@kernel matmul
//@what the 16x16 shared-memory tiles of matmul_tiled with __launch_bounds__(256, 4) added: the launch's 256 threads per block fit, the register budget is capped for four blocks per SM
__global__ void __launch_bounds__(256, 4) matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  __shared__ float ta[16][16], tb[16][16];
  int col = blockIdx.x * 16 + threadIdx.x;
  int row = blockIdx.y * 16 + threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[threadIdx.y][threadIdx.x] = row < n && k0 + threadIdx.x < n ? a[row * n + k0 + threadIdx.x] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = col < n && k0 + threadIdx.y < n ? b[(k0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    int kmax = min(16, n - k0);
    for (int k = 0; k < kmax; ++k) acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}
