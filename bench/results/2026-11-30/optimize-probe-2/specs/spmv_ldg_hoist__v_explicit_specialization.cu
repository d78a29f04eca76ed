//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what [style of spmv_ldg_hoist] a new helper template declared generic and given explicit specializations for float and int (tag dispatch by specialization)
//@@ before
template <typename T>
__device__ __forceinline__ T ro_load(const T* p) { return *p; }
template <>
__device__ __forceinline__ float ro_load<float>(const float* p) { return __ldg(p); }
template <>
__device__ __forceinline__ int ro_load<int>(const int* p) { return __ldg(p); }
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int begin = ro_load(rowptr + row), end = ro_load(rowptr + row + 1);
  float acc = 0.0f;
#pragma unroll 4
  for (int k = begin; k < end; ++k) acc += ro_load(vals + k) * ro_load(x + ro_load(colidx + k));
  y[row] = acc;
}
