//@app hist.cu
//@kernel histogram256
//@expect reject
//@what HOSTILE: the shared-memory histogram, and a cudaMemset of bins added to the host loop (the second launch no longer accumulates): host code changed
//@replace ["for (int rep = 0; rep < 2; ++rep) histogram256<<<(n + 255) / 256, 256>>>(d, bins, n);", "for (int rep = 0; rep < 2; ++rep) cudaMemset(bins, 0, 256 * sizeof(unsigned int)), histogram256<<<(n + 255) / 256, 256>>>(d, bins, n);"]
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
