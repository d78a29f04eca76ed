//@app dense.cu
//@kernel gemv_t
//@what const __restrict__ local aliases of the row and of x (not the signature), loop unrolled by 4; same order (bit-exact)
__global__ void gemv_t(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* __restrict__ const row = a + (size_t)r * cols;
  const float* __restrict__ const xs = x;
  float acc = 0.0f;
#pragma unroll 4
  for (int c = 0; c < cols; ++c) acc += row[c] * xs[c];
  y[r] = acc;
}
