//@app dense.cu
//@kernel bounded
//@what keeps __launch_bounds__(256, 4); each thread does four elements, grid-stride over float4
__global__ void __launch_bounds__(256, 4) bounded(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = gridDim.x * blockDim.x;
  for (int k = i; k < n / 4; k += stride) {
    float4 v = __ldg(reinterpret_cast<const float4*>(x) + k);
    float4 r;
    r.x = v.x * v.x + 1.0f;
    r.y = v.y * v.y + 1.0f;
    r.z = v.z * v.z + 1.0f;
    r.w = v.w * v.w + 1.0f;
    reinterpret_cast<float4*>(y)[k] = r;
  }
  for (int k = n / 4 * 4 + i; k < n; k += stride) y[k] = x[k] * x[k] + 1.0f;
}
