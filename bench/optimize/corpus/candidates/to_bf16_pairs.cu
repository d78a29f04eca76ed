//@app dense.cu
//@kernel to_bf16
//@what float2 loads and packed __nv_bfloat162 stores (__floats2bfloat162_rn rounds each half as __float2bfloat16)
__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    float2 v = reinterpret_cast<const float2*>(in)[i];
    reinterpret_cast<__nv_bfloat162*>(out)[i] = __floats2bfloat162_rn(v.x, v.y);
  } else if (2 * i < n) {
    out[2 * i] = __float2bfloat16(in[2 * i]);
  }
}
