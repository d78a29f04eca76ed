//@app hist.cu
//@kernel histogram256
//@expect reject
//@what HOSTILE: a new __host__ __device__ helper whose host branch calls the CUDA runtime, run at program start by a new const constant's initialiser
//@@ before
__host__ __device__ inline int hist_bins_hint() {
#ifndef __CUDA_ARCH__
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 32 << 20);
#endif
  return 256;
}
const int kHistBinsHint = hist_bins_hint();
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
