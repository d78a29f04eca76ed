//@app dense.cu
//@kernel bounded
//@what keeps __launch_bounds__(256, 4); one float4 per thread through __ldg, scalar tail (control for the launch-bounds spelling probe)
__global__ void __launch_bounds__(256, 4) bounded(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(x) + i);
    float4 r;
    r.x = v.x * v.x + 1.0f;
    r.y = v.y * v.y + 1.0f;
    r.z = v.z * v.z + 1.0f;
    r.w = v.w * v.w + 1.0f;
    reinterpret_cast<float4*>(y)[i] = r;
  } else {
    for (int k = 4 * i; k < n && k < 4 * i + 4; ++k) y[k] = x[k] * x[k] + 1.0f;
  }
}
