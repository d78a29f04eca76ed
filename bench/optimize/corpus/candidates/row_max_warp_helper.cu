//@app reduce.cu
//@kernel row_max
//@what the warp-wide maximum in a helper device function (a new __device__ function before the kernel), bit-exact
__device__ __forceinline__ float warp_max(float m) {
  for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  return m;
}
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x;
  const float* r = in + (size_t)row * cols;
  float m = r[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, r[c]);
  m = warp_max(m);
  if (threadIdx.x == 0) out[row] = m;
}
