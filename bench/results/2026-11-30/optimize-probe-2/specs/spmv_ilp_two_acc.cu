//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what scalar CSR with two independent accumulators (ILP), a templated fused-multiply helper with a default argument; reassociated sum
//@@ before
template <typename T, int kStride = 1>
__device__ __forceinline__ T dot_step(const T* v, const int* ci, const T* xv, int k) {
  return v[k * kStride] * xv[ci[k * kStride]];
}
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int begin = rowptr[row], end = rowptr[row + 1];
  float a0 = 0.0f, a1 = 0.0f;
  int k = begin;
  for (; k + 1 < end; k += 2) {
    a0 += dot_step(vals, colidx, x, k);
    a1 += dot_step(vals, colidx, x, k + 1);
  }
  if (k < end) a0 += dot_step(vals, colidx, x, k);
  y[row] = a0 + a1;
}
