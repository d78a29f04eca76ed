//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what __launch_bounds__(256, 4) (the app launches 16x16 = 256 threads) on the 16x16 shared-memory tiled kernel; bit-exact
//@@ kernel
__global__ void __launch_bounds__(256, 4) sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * 16 + tx;
  const int row = blockIdx.y * 16 + ty;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    const int kmax = min(16, K - k0);
#pragma unroll 4
    for (int kk = 0; kk < kmax; ++kk) acc += As[ty][kk] * Bs[kk][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
