//@app reduce.cu
//@kernel row_max
//@include <math_constants.h>
//@what the warp strides over the row from the identity -CUDART_INF_F (math_constants.h), __shfl_xor_sync butterfly; a row of NaNs still gives NaN (r[0]) as before
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const int row = blockIdx.x;
  const float* __restrict__ r = in + (size_t)row * cols;
  float m = -CUDART_INF_F;
  bool number = false;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = r[c];
    m = fmaxf(m, v);
    number |= v == v;
  }
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  const bool any_number = __any_sync(0xffffffffu, number);
  if (threadIdx.x == 0) out[row] = any_number ? m : r[0];
}
