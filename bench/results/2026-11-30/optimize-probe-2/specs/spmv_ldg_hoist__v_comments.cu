//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what [style of spmv_ldg_hoist] Doxygen block comment before the kernel, block and line comments inside the parameter list and the body; row bounds read once, vals/colidx/x through __ldg, #pragma unroll 4 (same order: bit-exact)
//@@ kernel
/**
 * Scalar CSR, one row per thread.
 * @param rows number of rows
 */
__global__ void /* hot */ spmv_csr(int rows /* m */, const int* __restrict__ rowptr, // CSR offsets
 const int* __restrict__ colidx, /* column of each nonzero */
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;  // tail of the last block
  /* bounds read once:
     they are reused for the whole row */
  const int begin = __ldg(rowptr + row), end = __ldg(rowptr + row + 1);
  float acc = 0.0f;
#pragma unroll 4
  for (int k = begin; k < end; ++k) acc += __ldg(vals + k) * __ldg(x + __ldg(colidx + k));
  y[row] = acc;
}
