//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what [style of spmv_ldg_hoist] two overloads of one new helper name (ro(const float*), ro(const int*)) for the read-only loads
//@@ before
__device__ __forceinline__ float ro(const float* p) { return __ldg(p); }
__device__ __forceinline__ int ro(const int* p) { return __ldg(p); }
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int begin = ro(rowptr + row), end = ro(rowptr + row + 1);
  float acc = 0.0f;
#pragma unroll 4
  for (int k = begin; k < end; ++k) acc += ro(vals + k) * ro(x + ro(colidx + k));
  y[row] = acc;
}
