//@app dense.cu
//@kernel saxpy
//@what four elements per thread through float4 loads and stores, a scalar tail
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int n4 = n / 4;
  for (int k = i; k < n4; k += gridDim.x * blockDim.x) {
    float4 xv = reinterpret_cast<const float4*>(x)[k];
    float4 yv = reinterpret_cast<float4*>(y)[k];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    reinterpret_cast<float4*>(y)[k] = yv;
  }
  if (i == 0)
    for (int k = n4 * 4; k < n; ++k) y[k] = a * x[k] + y[k];
}
