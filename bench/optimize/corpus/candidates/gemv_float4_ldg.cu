//@app dense.cu
//@kernel gemv
//@what rows read as float4 through __ldg (the issue's rejected H100 case), same summation order: bit-exact
__global__ void gemv(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float4* row = reinterpret_cast<const float4*>(a + (size_t)r * cols);
  const float4* xv = reinterpret_cast<const float4*>(x);
  float acc = 0.0f;
  for (int c = 0; c < cols / 4; ++c) {
    float4 v = __ldg(&row[c]);
    float4 w = __ldg(&xv[c]);
    acc += v.x * w.x;
    acc += v.y * w.y;
    acc += v.z * w.z;
    acc += v.w * w.w;
  }
  for (int c = cols / 4 * 4; c < cols; ++c) acc += a[(size_t)r * cols + c] * x[c];
  y[r] = acc;
}
