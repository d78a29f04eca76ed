//@app sgemm.cu
//@kernel sgemm_naive
//@expect reject
//@what by specification: the naive kernel with __restrict__ added to its three pointer parameters (the signature gate compares __restrict__; correct here since A, B, C do not alias)
//@@ kernel
__global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
#pragma unroll 8
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
