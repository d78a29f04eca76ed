//@app reduce.cu
//@kernel count_pos
//@include <cooperative_groups.h>
//@include <cooperative_groups/reduce.h>
//@what warp-aggregated count with cooperative groups: cg::reduce of 0/1 over a 32-thread tile, one atomic per warp (integer: exact)
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  namespace cg = cooperative_groups;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned pos = (i < n && in[i] > 0.0f) ? 1u : 0u;
  const unsigned total = cg::reduce(warp, pos, cg::plus<unsigned>());
  if (warp.thread_rank() == 0 && total) atomicAdd(count, total);
}
