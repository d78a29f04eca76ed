//@app dense.cu
//@kernel stencil
//@include <cuda/pipeline>
//@what the block's inputs and halo copied into shared memory with cuda::memcpy_async on a per-thread cuda::pipeline (producer_commit / consumer_wait), same arithmetic
__global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[256 + 4];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = threadIdx.x + 2;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  if (i < n) cuda::memcpy_async(&tile[t], in + i, cuda::aligned_size_t<4>(sizeof(float)), pipe);
  else tile[t] = 0.0f;
  if (threadIdx.x < 2) {
    const int left = i - 2, right = i + blockDim.x;
    if (left >= 0 && left < n) cuda::memcpy_async(&tile[threadIdx.x], in + left, cuda::aligned_size_t<4>(sizeof(float)), pipe);
    else tile[threadIdx.x] = 0.0f;
    if (right < n) cuda::memcpy_async(&tile[t + blockDim.x], in + right, cuda::aligned_size_t<4>(sizeof(float)), pipe);
    else tile[t + blockDim.x] = 0.0f;
  }
  pipe.producer_commit();
  pipe.consumer_wait();
  __syncthreads();
  pipe.consumer_release();
  if (i < 2 || i >= n - 2) return;
  out[i] = 0.1f * tile[t - 2] + 0.2f * tile[t - 1] + 0.4f * tile[t] + 0.2f * tile[t + 1] + 0.1f * tile[t + 2];
}
