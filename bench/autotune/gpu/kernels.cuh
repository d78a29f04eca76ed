// Tunable kernels of the exhaustively measured spaces (bench/autotune). Every instantiation must compute
// the same result as the naive reference; the driver checks that for each configuration.
#pragma once
#include <cuda_runtime.h>

constexpr int kConvFilter = 11;
// Passed by value: kernel parameters live in constant memory, and no cross-file __constant__ needs -rdc.
struct ConvFilter {
  float w[kConvFilter * kConvFilter];
};

struct Problem {
  // GEMM: C[M][N] = A[M][K] * B[K][N], row major.
  int M = 0, N = 0, K = 0;
  const float* A = nullptr;
  const float* B = nullptr;
  float* C = nullptr;
  // Convolution: out[H][W] = sum over the FxF filter (constant memory) of in[(H+F-1)][(W+F-1)].
  int W = 0, H = 0;
  ConvFilter filter{};
  const float* in = nullptr;
  float* out = nullptr;
};


template <int V>
struct alignas(4 * V) FloatVec {
  float v[V];
};

// Block tile BM x BN, K step BK, each thread computes TM x TN outputs, global loads VEC floats wide.
template <int BM, int BN, int BK, int TM, int TN, int VEC>
__global__ void sgemm_tiled(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B,
                            float* __restrict__ C) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float As[BK][BM];  // transposed: As[k][m]
  __shared__ __align__(16) float Bs[BK][BN];
  const int tid = threadIdx.x;
  const int tr = tid / (BN / TN);
  const int tc = tid % (BN / TN);
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int i = tid; i < BM * BK / VEC; i += kThreads) {
      const int r = i / (BK / VEC);
      const int c = (i % (BK / VEC)) * VEC;
      const FloatVec<VEC> a = *reinterpret_cast<const FloatVec<VEC>*>(&A[(size_t)(row0 + r) * K + k0 + c]);
#pragma unroll
      for (int j = 0; j < VEC; ++j) As[c + j][r] = a.v[j];
    }
    for (int i = tid; i < BK * BN / VEC; i += kThreads) {
      const int r = i / (BN / VEC);
      const int c = (i % (BN / VEC)) * VEC;
      *reinterpret_cast<FloatVec<VEC>*>(&Bs[r][c]) =
          *reinterpret_cast<const FloatVec<VEC>*>(&B[(size_t)(k0 + r) * N + col0 + c]);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][tr * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tc * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) C[(size_t)(row0 + tr * TM + i) * N + col0 + tc * TN + j] = acc[i][j];
}

template <int BM, int BN, int BK, int TM, int TN, int VEC>
cudaError_t launch_sgemm(const Problem& p) {
  dim3 grid(p.N / BN, p.M / BM);
  sgemm_tiled<BM, BN, BK, TM, TN, VEC><<<grid, (BM / TM) * (BN / TN)>>>(p.M, p.N, p.K, p.A, p.B, p.C);
  return cudaGetLastError();
}

template <int BM, int BN, int BK, int TM, int TN, int VEC>
cudaError_t attributes_sgemm(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, sgemm_tiled<BM, BN, BK, TM, TN, VEC>);
}

// Kernel Tuner-style direct convolution: block BX x BY threads, each thread TX x TY outputs (strided by the
// block size), the input tile in shared memory with PAD extra columns per row, the filter loops unrolled or not.
template <int BX, int BY, int TX, int TY, int PAD, int UNROLL>
__global__ void conv2d_tiled(int W, int H, const ConvFilter filter, const float* __restrict__ in,
                             float* __restrict__ out) {
  constexpr int F = kConvFilter;
  constexpr int kTileH = BY * TY + F - 1;
  constexpr int kTileW = BX * TX + F - 1;
  __shared__ float tile[kTileH][kTileW + PAD];
  const int in_w = W + F - 1;
  const int in_h = H + F - 1;
  const int x0 = blockIdx.x * BX * TX;
  const int y0 = blockIdx.y * BY * TY;
  for (int i = threadIdx.y; i < kTileH; i += BY)
    for (int j = threadIdx.x; j < kTileW; j += BX) {
      const int y = y0 + i, x = x0 + j;
      tile[i][j] = (y < in_h && x < in_w) ? in[(size_t)y * in_w + x] : 0.0f;
    }
  __syncthreads();
#pragma unroll
  for (int ty = 0; ty < TY; ++ty)
#pragma unroll
    for (int tx = 0; tx < TX; ++tx) {
      const int ly = threadIdx.y + ty * BY;
      const int lx = threadIdx.x + tx * BX;
      float sum = 0.0f;
      if constexpr (UNROLL) {
#pragma unroll
        for (int fy = 0; fy < F; ++fy)
#pragma unroll
          for (int fx = 0; fx < F; ++fx) sum += tile[ly + fy][lx + fx] * filter.w[fy * F + fx];
      } else {
#pragma unroll 1
        for (int fy = 0; fy < F; ++fy)
#pragma unroll 1
          for (int fx = 0; fx < F; ++fx) sum += tile[ly + fy][lx + fx] * filter.w[fy * F + fx];
      }
      const int y = y0 + ly, x = x0 + lx;
      if (y < H && x < W) out[(size_t)y * W + x] = sum;
    }
}

template <int BX, int BY, int TX, int TY, int PAD, int UNROLL>
cudaError_t launch_conv2d(const Problem& p) {
  dim3 block(BX, BY);
  dim3 grid((p.W + BX * TX - 1) / (BX * TX), (p.H + BY * TY - 1) / (BY * TY));
  conv2d_tiled<BX, BY, TX, TY, PAD, UNROLL><<<grid, block>>>(p.W, p.H, p.filter, p.in, p.out);
  return cudaGetLastError();
}

template <int BX, int BY, int TX, int TY, int PAD, int UNROLL>
cudaError_t attributes_conv2d(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, conv2d_tiled<BX, BY, TX, TY, PAD, UNROLL>);
}

using LaunchFn = cudaError_t (*)(const Problem&);
using AttributesFn = cudaError_t (*)(cudaFuncAttributes*);

struct KernelEntry {
  int params[6];
  LaunchFn launch;
  AttributesFn attributes;
};
