//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what one thread per element, A's row read as float4 through __builtin_assume_aligned (taken only when K % 4 == 0 and the row is 16-byte aligned, checked at run time), __builtin_expect on that test; products added in the naive k order: bit-exact
//@@ includes
#include <cstdint>
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* arow = A + (size_t)row * K;
  float acc = 0.0f;
  if (__builtin_expect((K & 3) == 0 && (reinterpret_cast<uintptr_t>(arow) & 15) == 0, 1)) {
    const float4* a4 = static_cast<const float4*>(__builtin_assume_aligned(arow, 16));
    for (int k = 0; k < K; k += 4) {
      const float4 a = a4[k >> 2];
      acc += a.x * B[(k + 0) * N + col];
      acc += a.y * B[(k + 1) * N + col];
      acc += a.z * B[(k + 2) * N + col];
      acc += a.w * B[(k + 3) * N + col];
    }
  } else {
    for (int k = 0; k < K; ++k) acc += arow[k] * B[k * N + col];
  }
  C[row * N + col] = acc;
}
