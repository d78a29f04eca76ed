//@app half.cu
//@kernel hgemm_naive
//@expect admit
//@what the wmma warp tile as a __device__ function template over (WM, WN, WK) with an explicit instantiation for 16,16,16, a constexpr table of the shape, __launch_bounds__(256, 2) on the kernel (256-thread launches); rtol
//@@ includes
#include <mma.h>
//@@ before
struct WarpShape {
  int m, n, k;
};
constexpr WarpShape kWarpShape{16, 16, 16};
template <int WM, int WN, int WK>
__device__ void wmma_warp_tile(const __half* A, const __half* B, float* C, int N, int K, int tm, int tn) {
  namespace wmma = nvcuda::wmma;
  wmma::fragment<wmma::matrix_a, WM, WN, WK, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, WM, WN, WK, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < K; k0 += WK) {
    wmma::load_matrix_sync(a, A + (size_t)tm * WM * K + k0, K);
    wmma::load_matrix_sync(b, B + (size_t)k0 * N + tn * WN, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + (size_t)tm * WM * N + tn * WN, acc, N, wmma::mem_row_major);
}
template __device__ void wmma_warp_tile<16, 16, 16>(const __half*, const __half*, float*, int, int, int, int);
//@@ kernel
__global__ void __launch_bounds__(256, 2) hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B,
                                                      float* __restrict__ C, int M, int N, int K) {
  constexpr int WM = kWarpShape.m, WN = kWarpShape.n, WK = kWarpShape.k;
  if (M % WM || N % WN || K % WK) {
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
  const int tile = (blockIdx.y * gridDim.x + blockIdx.x) * ((blockDim.x * blockDim.y) >> 5) + warp;
  const int tiles_n = N / WN;
  if (tile >= (M / WM) * tiles_n) return;
  wmma_warp_tile<WM, WN, WK>(A, B, C, N, K, tile / tiles_n, tile % tiles_n);
}
