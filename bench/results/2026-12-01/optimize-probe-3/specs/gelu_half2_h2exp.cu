//@app half.cu
//@kernel bias_gelu_half
//@expect admit
//@what __half2 vectorisation: __hadd2, __hmul2, h2exp, __h2div on pairs (cols even, so a pair never straddles a row and its bias pair is cols-aligned); threads past n/2 idle; odd cols falls back to the scalar body; the x2 intrinsics compute each half as the scalar ones do (cuda_fp16.hpp: h2exp = hexp per lane, __h2div = two __hdiv): bit-exact
//@@ kernel
__global__ void bias_gelu_half(const __half* __restrict__ x, const __half* __restrict__ bias, __half* __restrict__ y,
                               int rows, int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = rows * cols;
  if (cols & 1) {
    if (i < n) {
      __half v = __hadd(x[i], bias[i % cols]);
      __half e = hexp(__hmul(__float2half(-1.702f), v));
      y[i] = __hdiv(v, __hadd(__float2half(1.0f), e));
    }
    return;
  }
  if (i >= n / 2) return;
  const __half2 k2 = __float2half2_rn(-1.702f);
  const __half2 one2 = __float2half2_rn(1.0f);
  const __half2 xv = reinterpret_cast<const __half2*>(x)[i];
  const __half2 bv = reinterpret_cast<const __half2*>(bias)[i % (cols / 2)];
  const __half2 v = __hadd2(xv, bv);
  const __half2 e = h2exp(__hmul2(k2, v));
  reinterpret_cast<__half2*>(y)[i] = __h2div(v, __hadd2(one2, e));
}
