//@app app.hip
//@kernel saxpy
//@what float4 loads and stores for the aligned body, a scalar tail
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i * 4;
  if (v + 3 < n) {
    float4 xv = reinterpret_cast<const float4*>(x)[i];
    float4 yv = reinterpret_cast<float4*>(y)[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    reinterpret_cast<float4*>(y)[i] = yv;
  } else {
    for (int k = v; k < n; ++k) y[k] = a * x[k] + y[k];
  }
}
