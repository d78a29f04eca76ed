//@app hist.cu
//@kernel histogram256
//@expect admit
//@what warp-aggregated global atomics: __match_any_sync groups lanes of the same byte, the lowest lane adds __popc(peers)
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned live = __ballot_sync(0xffffffffu, i < n);
  if (i >= n) return;
  const unsigned b = data[i];
  const unsigned peers = __match_any_sync(live, b);
  if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1)) atomicAdd(&bins[b], (unsigned)__popc(peers));
}
