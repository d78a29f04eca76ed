//@app dense.cu
//@kernel to_bf16
//@what four floats per thread (float4 __ldg), two __float22bfloat162_rn conversions (round-to-nearest, as __float2bfloat16), one 8-byte store of a new aligned pair type
struct alignas(8) Bf16Quad {
  __nv_bfloat162 lo, hi;
};
__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (4 * i + 3 < n) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(in) + i);
    Bf16Quad q;
    q.lo = __float22bfloat162_rn(make_float2(v.x, v.y));
    q.hi = __float22bfloat162_rn(make_float2(v.z, v.w));
    reinterpret_cast<Bf16Quad*>(out)[i] = q;
  } else {
    for (int k = 4 * i; k < n && k < 4 * i + 4; ++k) out[k] = __float2bfloat16(in[k]);
  }
}
