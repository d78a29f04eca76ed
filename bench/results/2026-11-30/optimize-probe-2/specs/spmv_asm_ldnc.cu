//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what the gathered x and the column indices read through inline PTX ld.global.nc (f32 and s32), the streamed values through __ldcs; same order (bit-exact)
//@@ before
__device__ __forceinline__ float ldnc_f32(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ int ldnc_s32(const int* p) {
  int v;
  asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    const int end = rowptr[row + 1];
    for (int k = rowptr[row]; k < end; ++k) acc += __ldcs(vals + k) * ldnc_f32(x + ldnc_s32(colidx + k));
    y[row] = acc;
  }
}
