//@app hist.cu
//@kernel histogram256
//@expect admit
//@what [style of hist_agg_helper] the helper as __device__ inline in a named namespace instead of an anonymous one, called qualified; the warp-aggregated increment as a helper (match_any, leader adds the peer count, __reduce_add_sync not needed), called with bins as the base pointer
//@@ before
namespace hist_detail {
__device__ inline void aggregated_increment(unsigned int* base, unsigned int key, unsigned int mask) {
  const unsigned peers = __match_any_sync(mask, key);
  const int leader = __ffs(peers) - 1;
  if ((int)(threadIdx.x & 31) == leader) atomicAdd(base + key, (unsigned)__popc(peers));
}
}  // namespace hist_detail
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned mask = __ballot_sync(0xffffffffu, i < n);
  if (i < n) hist_detail::aggregated_increment(bins, data[i], mask);
}
