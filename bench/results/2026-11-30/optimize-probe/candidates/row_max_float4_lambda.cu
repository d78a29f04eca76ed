//@app reduce.cu
//@kernel row_max
//@what the warp reads the row as float4 through __ldg (when cols % 4 == 0) folded by a lambda, then a __shfl_xor_sync butterfly (max is order-independent: bit-exact)
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const int row = blockIdx.x;
  const float* __restrict__ r = in + (size_t)row * cols;
  float m = r[0];
  auto fold4 = [&m](float4 v) { m = fmaxf(fmaxf(m, v.x), fmaxf(fmaxf(v.y, v.z), v.w)); };
  int c0 = 0;
  if ((cols & 3) == 0) {
    const float4* r4 = reinterpret_cast<const float4*>(r);
    for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) fold4(__ldg(r4 + c));
    c0 = cols;
  }
  for (int c = c0 + threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, r[c]);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  if (threadIdx.x == 0) out[row] = m;
}
