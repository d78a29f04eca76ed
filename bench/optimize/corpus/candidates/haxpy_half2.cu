//@app dense.cu
//@kernel haxpy
//@what two halves per thread with half2 and __hfma2 (the same rounding per element as __hfma)
__global__ void haxpy(const __half* __restrict__ x, __half* __restrict__ y, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    __half2 xv = __ldg(reinterpret_cast<const __half2*>(x) + i);
    __half2 yv = reinterpret_cast<__half2*>(y)[i];
    reinterpret_cast<__half2*>(y)[i] = __hfma2(__halves2half2(a, a), xv, yv);
  } else if (2 * i < n) {
    y[2 * i] = __hfma(a, x[2 * i], y[2 * i]);
  }
}
