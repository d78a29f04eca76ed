//@app half.cu
//@kernel hgemm_naive
//@expect admit
//@what tensor cores through nvcuda::wmma (<mma.h>): one warp per 16x16 tile of C, fp16 A/B fragments (row_major), fp32 accumulator; tile = linear block * 8 + warp, warps past the (M/16)*(N/16) tiles return (warp-uniform); M,N,K % 16 else the naive body; fp16 products exact in fp32, sum order changed: rtol
//@@ includes
#include <mma.h>
//@@ kernel
__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  using namespace nvcuda;
  if ((M | N | K) & 15) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
      float acc = 0.0f;
      for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
      C[row * N + col] = acc;
    }
    return;
  }
  const int warp = (threadIdx.y * blockDim.x + threadIdx.x) >> 5;
  const int warps_per_block = (blockDim.x * blockDim.y) >> 5;
  const int tile = (blockIdx.y * gridDim.x + blockIdx.x) * warps_per_block + warp;
  const int tiles_n = N / 16;
  if (tile >= (M / 16) * tiles_n) return;
  const int tm = tile / tiles_n, tn = tile % tiles_n;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < K; k0 += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * 16 * K + k0, K);
    wmma::load_matrix_sync(b, B + (size_t)k0 * N + tn * 16, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}
