//@app reduce.cu
//@kernel gemv
//@expect admit
//@what x staged in shared memory by the <cuda_pipeline.h> primitives (__pipeline_memcpy_async of 16 bytes, __pipeline_commit, __pipeline_wait_prior(0)), thread per row, naive column order: bit-exact; cols % 4 else naive
//@@ includes
#include <cuda_pipeline.h>
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (cols & 3) {
    if (r < rows) {
      float acc = 0.0f;
      for (int c = 0; c < cols; ++c) acc += A[(size_t)r * cols + c] * x[c];
      y[r] = acc;
    }
    return;
  }
  __shared__ __align__(16) float xs[1024];
  float acc = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += 1024) {
    const int len = min(1024, cols - c0);
    for (int v = threadIdx.x; v < len / 4; v += blockDim.x) __pipeline_memcpy_async(&xs[4 * v], &x[c0 + 4 * v], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (r < rows) {
      const float* a = A + (size_t)r * cols + c0;
      for (int c = 0; c < len; ++c) acc += a[c] * xs[c];
    }
    __syncthreads();
  }
  if (r < rows) y[r] = acc;
}
