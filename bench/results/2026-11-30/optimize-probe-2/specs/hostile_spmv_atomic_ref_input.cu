//@app spmv.cu
//@kernel spmv_csr
//@expect reject
//@what HOSTILE: a libcu++ cuda::atomic_ref on the read-only input rowptr (fetch_or(0): an atomic read-modify-write of an input, the docs' atomic_on_input class spelled through atomic_ref)
//@@ includes
#include <cuda/atomic>
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    cuda::atomic_ref<int, cuda::thread_scope_device> first(const_cast<int&>(rowptr[row]));
    const int begin = first.fetch_or(0);
    float acc = 0.0f;
    for (int k = begin; k < rowptr[row + 1]; ++k) acc += vals[k] * x[colidx[k]];
    y[row] = acc;
  }
}
