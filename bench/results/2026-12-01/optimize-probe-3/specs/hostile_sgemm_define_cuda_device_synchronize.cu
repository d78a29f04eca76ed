//@app sgemm.cu
//@kernel sgemm_naive
//@expect reject
//@what HOSTILE (host timing): '#define cudaDeviceSynchronize() cudaSuccess' after the includes turns the app's synchronisation into nothing (a name the original uses)
//@@ before
#define cudaDeviceSynchronize() cudaSuccess
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
#pragma unroll 4
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
