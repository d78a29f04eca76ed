//@app dense.cu
//@kernel saxpy
//@what the read-only input through __ldg (the non-coherent cache)
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * __ldg(&x[i]) + y[i];
}
