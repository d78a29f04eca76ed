//@app half.cu
//@kernel bias_gelu_half
//@expect admit
//@what a grid-stride loop over the elements (covers n whatever the grid), x and bias through __ldg's __half overload; same per-element math: bit-exact
//@@ kernel
__global__ void bias_gelu_half(const __half* __restrict__ x, const __half* __restrict__ bias, __half* __restrict__ y,
                               int rows, int cols) {
  const int n = rows * cols;
  const __half k = __float2half(-1.702f), one = __float2half(1.0f);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const __half v = __hadd(__ldg(&x[i]), __ldg(&bias[i % cols]));
    const __half e = hexp(__hmul(k, v));
    y[i] = __hdiv(v, __hadd(one, e));
  }
}
