//@app half.cu
//@kernel bias_gelu_half
//@expect admit
//@what 2D indexing (row, column pair) instead of i % cols, __half2 math as gelu_half2_h2exp with the constant built by __halves2half2 and the scalar tail for odd cols; __launch_bounds__(256); bit-exact
//@@ kernel
__global__ void __launch_bounds__(256) bias_gelu_half(const __half* __restrict__ x, const __half* __restrict__ bias,
                                                      __half* __restrict__ y, int rows, int cols) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int pairs_per_row = cols >> 1;
  if ((cols & 1) == 0) {
    if (p >= rows * pairs_per_row) return;
    const int r = p / pairs_per_row, cp = p - r * pairs_per_row;
    const __half kh = __float2half(-1.702f), oh = __float2half(1.0f);
    const __half2 k2 = __halves2half2(kh, kh), one2 = __halves2half2(oh, oh);
    const __half2 v = __hadd2(*reinterpret_cast<const __half2*>(x + (size_t)r * cols + 2 * cp),
                              *reinterpret_cast<const __half2*>(bias + 2 * cp));
    *reinterpret_cast<__half2*>(y + (size_t)r * cols + 2 * cp) = __h2div(v, __hadd2(one2, h2exp(__hmul2(k2, v))));
    return;
  }
  if (p < rows * cols) {
    __half v = __hadd(x[p], bias[p % cols]);
    y[p] = __hdiv(v, __hadd(__float2half(1.0f), hexp(__hmul(__float2half(-1.702f), v))));
  }
}
