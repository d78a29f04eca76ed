//@app hist.cu
//@kernel histogram256
//@expect admit
//@what privatised shared-memory histogram (atomicAdd on __shared__), one global atomicAdd per non-empty bin per block; the original already updates bins atomically
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    const unsigned int c = local[b];
    if (c) atomicAdd(&bins[b], c);
  }
}
