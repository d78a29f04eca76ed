//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what a CUTLASS-style policy struct with static __device__ member functions (tile loader and dot step) used by the 16x16 tiled kernel; no state (static member functions, no static data); bit-exact
//@@ before
struct TileLoader16 {
  __device__ static __forceinline__ void load(float (&As)[16][16], float (&Bs)[16][16], const float* A, const float* B,
                                              int M, int N, int K, int row, int col, int k0) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
  }
  __device__ static __forceinline__ float dot(const float (&As)[16][16], const float (&Bs)[16][16], int kmax, float acc) {
    for (int kk = 0; kk < kmax; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
    return acc;
  }
};
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  const int col = blockIdx.x * 16 + threadIdx.x;
  const int row = blockIdx.y * 16 + threadIdx.y;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    TileLoader16::load(As, Bs, A, B, M, N, K, row, col, k0);
    __syncthreads();
    acc = TileLoader16::dot(As, Bs, min(16, K - k0), acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
