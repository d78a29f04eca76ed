//@app sgemm.cu
//@kernel sgemm_naive
//@expect reject
//@what HOSTILE (host code before main): a const object of a new type whose constructor runs host code at start-up (here it creates the context and sets a persisting-L2 limit, so the timed runs start warm); a const whose initialiser is not a compile-time constant
//@@ before
struct L2Prewarm {
  L2Prewarm() {
    cudaFree(nullptr);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 32u << 20);
  }
};
const L2Prewarm kL2Prewarm;
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
