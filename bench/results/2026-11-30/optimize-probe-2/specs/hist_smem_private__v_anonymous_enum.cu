//@app hist.cu
//@kernel histogram256
//@expect admit
//@what [style of hist_smem_private] the bin count as an unscoped anonymous enum's enumerator (docs: allowed)
//@@ before
enum { kHistBinCount = 256 };
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int local[kHistBinCount];
  for (int b = threadIdx.x; b < kHistBinCount; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kHistBinCount; b += blockDim.x) {
    const unsigned int c = local[b];
    if (c) atomicAdd(&bins[b], c);
  }
}
