//@app hist.cu
//@kernel histogram256
//@expect admit
//@what shared histogram where each warp first counts equal bytes with __match_any_sync, one shared atomicAdd per distinct byte per warp, __syncwarp before the flush
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned active = __ballot_sync(0xffffffffu, i < n);
  if (i < n) {
    const unsigned key = data[i];
    const unsigned peers = __match_any_sync(active, key);
    if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) atomicAdd(&local[key], (unsigned)__popc(peers));
  }
  __syncwarp();
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    const unsigned int c = local[b];
    if (c != 0u) atomicAdd(bins + b, c);
  }
}
