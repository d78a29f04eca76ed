//@app reduce.cu
//@kernel row_max
//@what the whole warp strides over the row and combines with __shfl_xor_sync (max is order-independent: bit-exact)
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x;
  const float* r = in + (size_t)row * cols;
  float m = r[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, r[c]);
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  if (threadIdx.x == 0) out[row] = m;
}
