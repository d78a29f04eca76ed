// Probe app (round 3): naive fp32 GEMM C = A * B (row-major, M x K times K x N), one thread per C element,
// launched twice. Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel sgemm_naive {
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
// @kernel sgemm_naive }

int main() {
  const int M = 512, N = 512, K = 512;
  std::vector<float> ha(M * K), hb(K * N);
  for (int i = 0; i < M * K; ++i) ha[i] = float((i * 37) % 17) * 0.0625f - 0.5f;
  for (int i = 0; i < K * N; ++i) hb[i] = float((i * 53) % 23) * 0.03125f - 0.34375f;
  float *A, *B, *C;
  cudaMalloc(&A, M * K * sizeof(float));
  cudaMalloc(&B, K * N * sizeof(float));
  cudaMalloc(&C, M * N * sizeof(float));
  cudaMemcpy(A, ha.data(), M * K * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hb.data(), K * N * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  for (int rep = 0; rep < 2; ++rep) sgemm_naive<<<grid, block>>>(A, B, C, M, N, K);
  cudaDeviceSynchronize();
  std::vector<float> hc(M * N);
  cudaMemcpy(hc.data(), C, M * N * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 0; i < M * N; i += 97) s += hc[i];
  std::printf("sgemm: C[0]=%.6f sampled sum %.6f (%s)\n", hc[0], s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
