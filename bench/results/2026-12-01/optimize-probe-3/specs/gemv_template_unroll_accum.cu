//@app reduce.cu
//@kernel gemv
//@expect admit
//@what thread per row with a __device__ function template over the number of independent accumulators (non-type, 4, explicit instantiation), #pragma unroll over it, a remainder loop; reassociated: rtol
//@@ before
template <int NACC>
__device__ __forceinline__ float row_dot(const float* __restrict__ a, const float* __restrict__ x, int cols) {
  float acc[NACC];
#pragma unroll
  for (int j = 0; j < NACC; ++j) acc[j] = 0.0f;
  int c = 0;
  for (; c + NACC <= cols; c += NACC)
#pragma unroll
    for (int j = 0; j < NACC; ++j) acc[j] += a[c + j] * x[c + j];
  for (; c < cols; ++c) acc[0] += a[c] * x[c];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < NACC; ++j) s += acc[j];
  return s;
}
template __device__ float row_dot<4>(const float* __restrict__, const float* __restrict__, int);
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) y[r] = row_dot<4>(A + (size_t)r * cols, x, cols);
}
