//@app app.hip
//@kernel saxpy
//@what grid-stride loop reading x through __ldg
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * __ldg(x + i) + y[i];
}
