//@app half.cu
//@kernel rmsnorm_bf16
//@expect admit
//@what still one thread per row, the row read as __nv_bfloat162 pairs with #pragma unroll 4 and the squares added in the naive order (v0 then v1: same fp32 sequence, bit-exact), output written as pairs with __floats2bfloat162_rn (rounds each lane as __float2bfloat16 does); odd cols: the naive body
//@@ kernel
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float ss = 0.0f;
  if (cols & 1) {
    for (int c = 0; c < cols; ++c) {
      float v = __bfloat162float(x[(size_t)r * cols + c]);
      ss += v * v;
    }
    float rs = rsqrtf(ss / cols + eps);
    for (int c = 0; c < cols; ++c)
      y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(x[(size_t)r * cols + c]) * rs * __bfloat162float(w[c]));
    return;
  }
  const __nv_bfloat162* x2 = reinterpret_cast<const __nv_bfloat162*>(x + (size_t)r * cols);
  const __nv_bfloat162* w2 = reinterpret_cast<const __nv_bfloat162*>(w);
  __nv_bfloat162* y2 = reinterpret_cast<__nv_bfloat162*>(y + (size_t)r * cols);
#pragma unroll 4
  for (int c = 0; c < cols / 2; ++c) {
    const float2 v = __bfloat1622float2(x2[c]);
    ss += v.x * v.x;
    ss += v.y * v.y;
  }
  const float rs = rsqrtf(ss / cols + eps);
#pragma unroll 4
  for (int c = 0; c < cols / 2; ++c) {
    const float2 v = __bfloat1622float2(x2[c]), g = __bfloat1622float2(w2[c]);
    y2[c] = __floats2bfloat162_rn(v.x * rs * g.x, v.y * rs * g.y);
  }
}
