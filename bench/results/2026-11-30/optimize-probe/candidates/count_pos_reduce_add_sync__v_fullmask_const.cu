//@app reduce.cu
//@kernel count_pos
//@what [variation of count_pos_reduce_add_sync: fullmask_const] warp-aggregated count with the sm_80 redux instruction: __reduce_add_sync of 0/1 over the warp, one atomic per warp (exact)
constexpr unsigned kFullWarpMask = 0xffffffffu;
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned pos = (i < n && in[i] > 0.0f) ? 1u : 0u;
  const unsigned total = __reduce_add_sync(kFullWarpMask, pos);
  if ((threadIdx.x & 31) == 0 && total) atomicAdd(count, total);
}
