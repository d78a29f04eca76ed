//@app reduce.cu
//@kernel count_pos
//@what warp-aggregated count: __ballot_sync and __popc, one atomic per warp instead of one per element
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool pos = i < n && in[i] > 0.0f;
  unsigned mask = __ballot_sync(0xffffffffu, pos);
  if (threadIdx.x % 32 == 0 && mask) atomicAdd(count, (unsigned)__popc(mask));
}
