//@app scan.cu
//@kernel block_scan
//@expect admit
//@what cooperative_groups/scan.h: cg::inclusive_scan over 32-thread tiles, cg::exclusive_scan of the tile totals by the first tile, totals in the dynamic shared memory
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
//@@ before
namespace cg = cooperative_groups;
//@@ kernel
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float totals[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int ntiles = (int)tile.meta_group_size();
  float v = cg::inclusive_scan(tile, i < n ? in[i] : 0.0f);
  if (tile.thread_rank() == 31) totals[tile.meta_group_rank()] = v;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    const float w = tile.thread_rank() < (unsigned)ntiles ? totals[tile.thread_rank()] : 0.0f;
    const float ex = cg::exclusive_scan(tile, w);
    if (tile.thread_rank() < (unsigned)ntiles) totals[32 + tile.thread_rank()] = ex;
  }
  block.sync();
  v += totals[32 + tile.meta_group_rank()];
  if (i < n) out[i] = v;
}
