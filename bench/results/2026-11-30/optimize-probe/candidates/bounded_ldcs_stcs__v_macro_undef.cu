//@app dense.cu
//@kernel bounded
//@what [variation of bounded_ldcs_stcs: macro_undef] keeps __launch_bounds__(256, 4); float4 streaming loads and stores (__ldcs / __stcs: evict-first, the data is touched once)
#define BOUNDED_SQ1(v) ((v) * (v) + 1.0f)
__global__ void __launch_bounds__(256, 4) bounded(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    const float4 v = __ldcs(reinterpret_cast<const float4*>(x) + i);
    float4 r;
    r.x = BOUNDED_SQ1(v.x);
    r.y = BOUNDED_SQ1(v.y);
    r.z = BOUNDED_SQ1(v.z);
    r.w = BOUNDED_SQ1(v.w);
    __stcs(reinterpret_cast<float4*>(y) + i, r);
  } else {
    for (int k = 4 * i; k < n && k < 4 * i + 4; ++k) y[k] = x[k] * x[k] + 1.0f;
  }
}
#undef BOUNDED_SQ1
