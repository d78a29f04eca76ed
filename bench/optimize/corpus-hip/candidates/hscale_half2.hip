//@app app.hip
//@kernel hscale
//@what two halves per thread as __half2, converted through float2
__global__ void hscale(const __half* __restrict__ x, __half* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i * 2;
  if (v + 1 < n) {
    float2 f = __half22float2(reinterpret_cast<const __half2*>(x)[i]);
    reinterpret_cast<__half2*>(y)[i] = __floats2half2_rn(a * f.x, a * f.y);
  } else if (v < n) {
    y[v] = __float2half(a * __half2float(x[v]));
  }
}
