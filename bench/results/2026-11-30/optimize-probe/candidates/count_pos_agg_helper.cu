//@app reduce.cu
//@kernel count_pos
//@what the warp-aggregated increment of the CUDA blog ("atomicAggInc") as a helper device function: the lowest active lane adds the warp's count
__device__ __forceinline__ void warp_agg_add(unsigned* ctr, bool pred) {
  const unsigned mask = __ballot_sync(0xffffffffu, pred);
  if ((threadIdx.x & 31) == 0 && mask) atomicAdd(ctr, (unsigned)__popc(mask));
}
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  warp_agg_add(count, i < n && in[i] > 0.0f);
}
