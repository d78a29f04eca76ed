//@app app.hip
//@kernel row_max
//@what one wavefront per row: strided maxima, then a butterfly with __shfl_xor
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x;
  const float* r = in + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, r[c]);
  for (int mask = warpSize / 2; mask > 0; mask /= 2) m = fmaxf(m, __shfl_xor(m, mask));
  if (threadIdx.x == 0) out[row] = m;
}
