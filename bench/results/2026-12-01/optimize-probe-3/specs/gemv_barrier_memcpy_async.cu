//@app reduce.cu
//@kernel gemv
//@expect admit
//@what x staged in shared memory chunks by cuda::memcpy_async with a block-scope cuda::barrier in shared memory (<cuda/barrier>, the cooperative_groups thread_block overload, #pragma nv_diag_suppress inside the kernel as the programming guide writes it, init by thread 0, arrive_and_wait), thread per row, naive column order: bit-exact
//@@ includes
#include <cuda/barrier>
#include <cooperative_groups.h>
//@@ kernel
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ __align__(16) float xs[2048];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int c0 = 0; c0 < cols; c0 += 2048) {
    const int len = min(2048, cols - c0);
    cuda::memcpy_async(cooperative_groups::this_thread_block(), xs, x + c0, sizeof(float) * len, bar);
    bar.arrive_and_wait();
    if (r < rows) {
      const float* a = A + (size_t)r * cols + c0;
      for (int c = 0; c < len; ++c) acc += a[c] * xs[c];
    }
    __syncthreads();
  }
  if (r < rows) y[r] = acc;
}
