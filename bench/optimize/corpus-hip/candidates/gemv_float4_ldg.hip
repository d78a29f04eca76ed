//@app app.hip
//@kernel gemv
//@rtol 1e-5
//@what rows read as float4 through the __ldg overload, x likewise
__global__ void gemv(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float4* row = reinterpret_cast<const float4*>(a + (size_t)r * cols);
  const float4* xv = reinterpret_cast<const float4*>(x);
  float acc = 0.0f;
  for (int c = 0; c < cols / 4; ++c) {
    float4 av = __ldg(row + c), bv = __ldg(xv + c);
    acc += av.x * bv.x + av.y * bv.y + av.z * bv.z + av.w * bv.w;
  }
  for (int c = cols / 4 * 4; c < cols; ++c) acc += a[(size_t)r * cols + c] * x[c];
  y[r] = acc;
}
