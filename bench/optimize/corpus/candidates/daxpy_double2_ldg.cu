//@app dense.cu
//@kernel daxpy
//@what two doubles per thread: double2 loads through the __ldg overload for double2
__global__ void daxpy(const double* __restrict__ x, double* __restrict__ y, double a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    double2 xv = __ldg(reinterpret_cast<const double2*>(x) + i);
    double2 yv = reinterpret_cast<double2*>(y)[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    reinterpret_cast<double2*>(y)[i] = yv;
  } else if (2 * i < n) {
    y[2 * i] = a * x[2 * i] + y[2 * i];
  }
}
