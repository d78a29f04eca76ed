//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what the usual workaround: signature unchanged, __restrict__ local copies of the pointers inside the kernel, 2x1 unrolled k; bit-exact
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const float* __restrict__ a = A;
  const float* __restrict__ b = B;
  float* __restrict__ c = C;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
#pragma unroll 8
    for (int k = 0; k < K; ++k) acc += a[row * K + k] * b[k * N + col];
    c[row * N + col] = acc;
  }
}
