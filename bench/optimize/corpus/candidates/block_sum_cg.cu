//@app reduce.cu
//@kernel block_sum_cg
//@include <cooperative_groups.h>
//@include <cooperative_groups/reduce.h>
//@rtol 1e-5
//@what cooperative groups: cg::reduce over 32-thread tiles, then over the tiles' sums
__global__ void block_sum_cg(const float* __restrict__ in, float* __restrict__ partial, int n) {
  namespace cg = cooperative_groups;
  __shared__ float tile_sums[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = cg::reduce(tile, i < n ? in[i] : 0.0f, cg::plus<float>());
  if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = v;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    float w = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0.0f;
    w = cg::reduce(tile, w, cg::plus<float>());
    if (tile.thread_rank() == 0) partial[blockIdx.x] = w;
  }
}
