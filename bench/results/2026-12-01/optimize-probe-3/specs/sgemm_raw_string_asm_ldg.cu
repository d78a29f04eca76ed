//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what the naive loop with B loaded through ld.global.nc in inline PTX written as a C++11 raw string literal R"(...)" (a multi-line PTX template); same values, same order: bit-exact
//@@ before
__device__ __forceinline__ float ldg_nc(const float* p) {
  float v;
  asm volatile(R"(
    ld.global.nc.f32 %0, [%1];
  )" : "=f"(v) : "l"(p));
  return v;
}
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * ldg_nc(&B[k * N + col]);
    C[row * N + col] = acc;
  }
}
