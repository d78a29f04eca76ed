//@app half.cu
//@kernel bias_gelu_half
//@expect admit
//@what 8 halves per thread through a new 16-byte aligned struct of four __half2 (one 128-bit load/store), static_assert on its size, a __forceinline__ helper doing the pair math; cols % 8 == 0 (1024) else the scalar body; bit-exact (same per-element intrinsics)
//@@ before
struct alignas(16) Half8 {
  __half2 h[4];
};
static_assert(sizeof(Half8) == 16, "one 128-bit access");
__device__ __forceinline__ __half2 gelu_pair(__half2 xv, __half2 bv) {
  const __half2 v = __hadd2(xv, bv);
  const __half2 e = h2exp(__hmul2(__float2half2_rn(-1.702f), v));
  return __h2div(v, __hadd2(__float2half2_rn(1.0f), e));
}
//@@ kernel
__global__ void bias_gelu_half(const __half* __restrict__ x, const __half* __restrict__ bias, __half* __restrict__ y,
                               int rows, int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int n = rows * cols;
  if (cols % 8 != 0) {
    if (i < n) {
      __half v = __hadd(x[i], bias[i % cols]);
      __half e = hexp(__hmul(__float2half(-1.702f), v));
      y[i] = __hdiv(v, __hadd(__float2half(1.0f), e));
    }
    return;
  }
  if (i >= n / 8) return;
  const Half8 xv = reinterpret_cast<const Half8*>(x)[i];
  const Half8 bv = reinterpret_cast<const Half8*>(bias)[i % (cols / 8)];
  Half8 out;
#pragma unroll
  for (int j = 0; j < 4; ++j) out.h[j] = gelu_pair(xv.h[j], bv.h[j]);
  reinterpret_cast<Half8*>(y)[i] = out;
}
