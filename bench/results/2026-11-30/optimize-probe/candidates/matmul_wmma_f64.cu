//@app tiles.cu
//@kernel matmul
//@include <mma.h>
//@rtol 1e-5
//@what FP64 tensor cores (nvcuda::wmma m8n8k4, sm_80+): 16x16 tiles staged in shared memory as double, four warps each own an 8x8 quarter, one rounding to float at the end
__global__ void matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  using namespace nvcuda;
  __shared__ __align__(32) double ta[16][16];
  __shared__ __align__(32) double tb[16][16];
  __shared__ __align__(32) double tc[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * 16 + tx, row = blockIdx.y * 16 + ty;
  const int warp = (ty * 16 + tx) / 32;
  const int wr = (warp / 2) * 8, wc = (warp % 2) * 8;  // warps 0..3: one 8x8 quarter each
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int k0 = 0; k0 < n; k0 += 16) {
    ta[ty][tx] = row < n && k0 + tx < n ? (double)a[row * n + k0 + tx] : 0.0;
    tb[ty][tx] = col < n && k0 + ty < n ? (double)b[(k0 + ty) * n + col] : 0.0;
    __syncthreads();
    if (warp < 4) {
#pragma unroll
      for (int k = 0; k < 16; k += 4) {
        wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, &ta[wr][k], 16);
        wmma::load_matrix_sync(fb, &tb[k][wc], 16);
        wmma::mma_sync(acc, fa, fb, acc);
      }
    }
    __syncthreads();
  }
  if (warp < 4) wmma::store_matrix_sync(&tc[wr][wc], acc, 16, wmma::mem_row_major);
  __syncthreads();
  if (row < n && col < n) c[row * n + col] = (float)tc[ty][tx];
}
