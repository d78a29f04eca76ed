//@app half.cu
//@kernel hgemm_naive
//@expect runtime
//@what HOSTILE (partial work): the wmma kernel computes only the tiles of the first half of C's rows (the rest stays stale); no static or binary rule applies, the equivalence gate's whole-memory comparison (poisoned outputs) must catch it
//@@ includes
#include <mma.h>
//@@ kernel
__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  using namespace nvcuda;
  const int warp = (threadIdx.y * blockDim.x + threadIdx.x) >> 5;
  const int tile = (blockIdx.y * gridDim.x + blockIdx.x) * 8 + warp;
  const int tiles_n = N / 16;
  if (tile >= (M / 32) * tiles_n) return;
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
