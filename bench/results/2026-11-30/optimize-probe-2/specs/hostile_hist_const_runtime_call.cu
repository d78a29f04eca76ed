//@app hist.cu
//@kernel histogram256
//@expect reject
//@what HOSTILE: a new file-scope const "constant" whose dynamic initialiser calls the CUDA runtime at program start (cudaDeviceSetLimit of the persisting L2 size): host code run outside main
//@@ before
const cudaError_t kHistL2Persist = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 32 << 20);
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
