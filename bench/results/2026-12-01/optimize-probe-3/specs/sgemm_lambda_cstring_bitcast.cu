//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what a lambda in the kernel for the dot product, and a helper that loads B through memcpy type punning (#include <cstring>, std::memcpy of 4 bytes, the portable bit_cast idiom in device code); bit-exact
//@@ includes
#include <cstring>
//@@ before
__device__ __forceinline__ float load_bits(const float* p) {
  unsigned int u;
  std::memcpy(&u, p, sizeof u);
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  auto dot = [=](int r, int c) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[r * K + k] * load_bits(&B[k * N + c]);
    return acc;
  };
  if (row < M && col < N) C[row * N + col] = dot(row, col);
}
