//@app hist.cu
//@kernel histogram256
//@expect admit
//@what libcu++ cuda::atomic_ref<unsigned, thread_scope_block> (relaxed) on a shared histogram, then device-scope atomic_ref fetch_add on bins (which the original already updates atomically)
//@@ includes
#include <cuda/atomic>
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    cuda::atomic_ref<unsigned int, cuda::thread_scope_block> slot(local[data[i]]);
    slot.fetch_add(1u, cuda::memory_order_relaxed);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    const unsigned int c = local[b];
    if (c) cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(bins[b]).fetch_add(c, cuda::memory_order_relaxed);
  }
}
