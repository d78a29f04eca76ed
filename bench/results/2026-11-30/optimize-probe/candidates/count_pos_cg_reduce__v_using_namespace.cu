//@app reduce.cu
//@kernel count_pos
//@include <cooperative_groups.h>
//@include <cooperative_groups/reduce.h>
//@what [variation of count_pos_cg_reduce: using_namespace] warp-aggregated count with cooperative groups: reduce of 0/1 over a 32-thread tile, one atomic per warp (integer: exact)
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  using namespace cooperative_groups;
  thread_block_tile<32> warp = tiled_partition<32>(this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned pos = (i < n && in[i] > 0.0f) ? 1u : 0u;
  const unsigned total = reduce(warp, pos, plus<unsigned>());
  if (warp.thread_rank() == 0 && total) atomicAdd(count, total);
}
