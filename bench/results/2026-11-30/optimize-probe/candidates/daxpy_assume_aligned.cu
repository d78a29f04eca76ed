//@app dense.cu
//@kernel daxpy
//@what grid-stride loop over double2 through pointers declared 16-byte aligned with __builtin_assume_aligned (cudaMalloc gives 256), scalar tail
__global__ void daxpy(const double* __restrict__ x, double* __restrict__ y, double a, int n) {
  const double2* __restrict__ x2 = static_cast<const double2*>(__builtin_assume_aligned(x, 16));
  double2* __restrict__ y2 = static_cast<double2*>(__builtin_assume_aligned(y, 16));
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  for (int k = i; k < n / 2; k += stride) {
    double2 xv = x2[k], yv = y2[k];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    y2[k] = yv;
  }
  for (int k = n / 2 * 2 + i; k < n; k += stride) y[k] = a * x[k] + y[k];
}
