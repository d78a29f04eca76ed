//@app dense.cu
//@kernel bounded
//@what [variation of bounded_ldcs_stcs: if0_debug] keeps __launch_bounds__(256, 4); float4 streaming loads and stores (__ldcs / __stcs: evict-first, the data is touched once)
__global__ void __launch_bounds__(256, 4) bounded(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    const float4 v = __ldcs(reinterpret_cast<const float4*>(x) + i);
    float4 r;
    r.x = v.x * v.x + 1.0f;
    r.y = v.y * v.y + 1.0f;
    r.z = v.z * v.z + 1.0f;
    r.w = v.w * v.w + 1.0f;
    __stcs(reinterpret_cast<float4*>(y) + i, r);
#if 0
    if (i == 0) printf("r.x=%f clock=%lld\n", r.x, clock64());
#endif
  } else {
    for (int k = 4 * i; k < n && k < 4 * i + 4; ++k) y[k] = x[k] * x[k] + 1.0f;
  }
}
