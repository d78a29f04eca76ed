// Testbed for `rocm-perf autotune --capture-dir`: C = A*B (N x N, fp32) with a tiled kernel whose tuning
// parameters are macros that keep the launch geometry (16x16 threads, a 64x64 tile of C per block), so every
// build of it replays with the captured grid. The kernel is extern "C": its symbol is the same in every build.
// BK: K step (a BK that does not divide N skips the tail and computes a wrong result, on purpose: the tuner
// must reject it); PAD: shared-memory row padding; STRIDED: thread-to-output mapping; VEC: float4 loads of A.
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef BK
#define BK 8
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef STRIDED
#define STRIDED 0
#endif
#ifndef VEC
#define VEC 1
#endif

constexpr int kTile = 64, kThreads = 16, kPer = kTile / kThreads;  // 4x4 outputs per thread

extern "C" __global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int N) {
  __shared__ __align__(16) float As[kTile][BK + PAD];
  __shared__ __align__(16) float Bs[BK][kTile + PAD];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kThreads + tx;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[kPer][kPer] = {};
  for (int k0 = 0; k0 + BK <= N; k0 += BK) {
#if VEC == 4
    for (int i = tid; i < kTile * BK / 4; i += kThreads * kThreads) {
      const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
      const float4 v = *reinterpret_cast<const float4*>(&A[(size_t)(row0 + r) * N + k0 + c]);
      As[r][c] = v.x; As[r][c + 1] = v.y; As[r][c + 2] = v.z; As[r][c + 3] = v.w;
    }
#else
    for (int i = tid; i < kTile * BK; i += kThreads * kThreads) As[i / BK][i % BK] = A[(size_t)(row0 + i / BK) * N + k0 + i % BK];
#endif
    for (int i = tid; i < BK * kTile; i += kThreads * kThreads)
      Bs[i / kTile][i % kTile] = B[(size_t)(k0 + i / kTile) * N + col0 + i % kTile];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk)
#pragma unroll
      for (int i = 0; i < kPer; ++i)
#pragma unroll
        for (int j = 0; j < kPer; ++j) {
#if STRIDED
          acc[i][j] += As[ty + i * kThreads][kk] * Bs[kk][tx + j * kThreads];
#else
          acc[i][j] += As[ty * kPer + i][kk] * Bs[kk][tx * kPer + j];
#endif
        }
    __syncthreads();
  }
  for (int i = 0; i < kPer; ++i)
    for (int j = 0; j < kPer; ++j) {
#if STRIDED
      C[(size_t)(row0 + ty + i * kThreads) * N + col0 + tx + j * kThreads] = acc[i][j];
#else
      C[(size_t)(row0 + ty * kPer + i) * N + col0 + tx * kPer + j] = acc[i][j];
#endif
    }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  std::vector<float> a((size_t)n * n), b((size_t)n * n);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }
  float *da, *db, *dc;
  cudaMalloc(&da, a.size() * 4);
  cudaMalloc(&db, b.size() * 4);
  cudaMalloc(&dc, a.size() * 4);
  cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  for (int it = 0; it < 3; ++it) matmul_tiled<<<dim3(n / kTile, n / kTile), dim3(kThreads, kThreads)>>>(da, db, dc, n);
  std::vector<float> c(a.size());
  cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost);
  const cudaError_t e = cudaDeviceSynchronize();
  double sum = 0;
  for (float v : c) sum += v;
  std::printf("matmul %d: %s, checksum %.6f\n", n, cudaGetErrorString(e), sum);
  return e == cudaSuccess ? 0 : 1;
}
