//@app dense.cu
//@kernel gemv
//@what [variation of gemv_template_unroll_lambda: anon_namespace] the row's dot product in a templated helper whose inner loop is #pragma unroll over a compile-time UNROLL, called through a lambda in the kernel; loads through __ldg; summation order kept (bit-exact)
namespace {
template <int UNROLL>
__device__ __forceinline__ float gemv_row_dot(const float* __restrict__ row, const float* __restrict__ x, int cols) {
  float acc = 0.0f;
  int c = 0;
  for (; c + UNROLL <= cols; c += UNROLL) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc += __ldg(row + c + u) * __ldg(x + c + u);
  }
  for (; c < cols; ++c) acc += row[c] * x[c];
  return acc;
}
}  // namespace
__global__ void gemv(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  auto dot = [x, cols](const float* __restrict__ row) { return gemv_row_dot<8>(row, x, cols); };
  y[r] = dot(a + (size_t)r * cols);
}
