//@app spmv.cu
//@kernel spmv_csr
//@expect reject
//@what HOSTILE: a new helper does an atomicAdd on the read-only input x (through const_cast): uses the input as scratch
//@@ before
__device__ __forceinline__ float gather_and_mark(const float* xv, int c) {
  float* w = const_cast<float*>(xv);
  return atomicAdd(w + c, 0.0f);
}
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int k = rowptr[row]; k < rowptr[row + 1]; ++k) acc += vals[k] * gather_and_mark(x, colidx[k]);
    y[row] = acc;
  }
}
