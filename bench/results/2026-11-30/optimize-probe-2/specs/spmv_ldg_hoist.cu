//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what row bounds read once, vals/colidx/x through __ldg, #pragma unroll 4 (same order: bit-exact)
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int begin = __ldg(rowptr + row), end = __ldg(rowptr + row + 1);
  float acc = 0.0f;
#pragma unroll 4
  for (int k = begin; k < end; ++k) acc += __ldg(vals + k) * __ldg(x + __ldg(colidx + k));
  y[row] = acc;
}
