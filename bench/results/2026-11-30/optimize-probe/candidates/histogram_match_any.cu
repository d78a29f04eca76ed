//@app reduce.cu
//@kernel histogram
//@what warp-aggregated atomics: __match_any_sync groups the lanes with the same bin, the lowest lane adds __popc(peers) once
__global__ void histogram(const int* __restrict__ v, unsigned* __restrict__ bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = i < n;
  const unsigned live = __ballot_sync(0xffffffffu, active);
  if (!active) return;
  const int b = v[i];
  const unsigned peers = __match_any_sync(live, b);
  const int leader = __ffs(peers) - 1;
  if ((int)(threadIdx.x & 31) == leader) atomicAdd(&bins[b], (unsigned)__popc(peers));
}
