//@app dense.cu
//@kernel stencil
//@include <cuda_pipeline_primitives.h>
//@what the block's inputs and halo copied into shared memory with the documented pipeline primitives (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior), same arithmetic
__global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[256 + 4];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = threadIdx.x + 2;
  if (i < n) __pipeline_memcpy_async(&tile[t], in + i, sizeof(float));
  else tile[t] = 0.0f;
  if (threadIdx.x < 2) {
    const int left = i - 2, right = i + blockDim.x;
    if (left >= 0 && left < n) __pipeline_memcpy_async(&tile[threadIdx.x], in + left, sizeof(float));
    else tile[threadIdx.x] = 0.0f;
    if (right < n) __pipeline_memcpy_async(&tile[t + blockDim.x], in + right, sizeof(float));
    else tile[t + blockDim.x] = 0.0f;
  }
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (i < 2 || i >= n - 2) return;
  out[i] = 0.1f * tile[t - 2] + 0.2f * tile[t - 1] + 0.4f * tile[t] + 0.2f * tile[t + 1] + 0.1f * tile[t + 2];
}
