//@app sgemm.cu
//@kernel sgemm_naive
//@expect admit
//@what 16x16 tiles double-buffered through cuda::pipeline (thread scope, <cuda/pipeline>) and cuda::memcpy_async; edges written 0 directly; same k order: bit-exact
//@@ includes
#include <cuda/pipeline>
//@@ kernel
__global__ void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[2][16][16];
  __shared__ float Bs[2][16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * 16 + tx;
  const int row = blockIdx.y * 16 + ty;
  const int tiles = (K + 15) / 16;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  auto stage = [&](int t, int buf) {
    pipe.producer_acquire();
    const int ka = t * 16 + tx, kb = t * 16 + ty;
    if (row < M && ka < K) cuda::memcpy_async(&As[buf][ty][tx], &A[row * K + ka], sizeof(float), pipe);
    else As[buf][ty][tx] = 0.0f;
    if (kb < K && col < N) cuda::memcpy_async(&Bs[buf][ty][tx], &B[kb * N + col], sizeof(float), pipe);
    else Bs[buf][ty][tx] = 0.0f;
    pipe.producer_commit();
  };
  float acc = 0.0f;
  stage(0, 0);
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) stage(t + 1, (t + 1) & 1);
    pipe.consumer_wait();
    __syncthreads();
    const int kmax = min(16, K - t * 16);
    for (int kk = 0; kk < kmax; ++kk) acc += As[t & 1][ty][kk] * Bs[t & 1][kk][tx];
    __syncthreads();
    pipe.consumer_release();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
