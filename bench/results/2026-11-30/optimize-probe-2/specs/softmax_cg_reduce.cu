//@app softmax.cu
//@kernel softmax_rows
//@expect admit
//@what cooperative groups: cg::reduce over a 32-thread tile (cg::greater, cg::plus), then across warps through shared memory
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
//@@ kernel
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float red[32];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  const int nwarps = (block.size() + 31) / 32;
  float m = -INFINITY;
  for (int c = block.thread_rank(); c < cols; c += block.size()) m = fmaxf(m, x[c]);
  m = cg::reduce(tile, m, cg::greater<float>());
  if (tile.thread_rank() == 0) red[tile.meta_group_rank()] = m;
  block.sync();
  m = red[0];
  for (int w = 1; w < nwarps; ++w) m = fmaxf(m, red[w]);
  block.sync();
  float s = 0.0f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) s += expf(x[c] - m);
  s = cg::reduce(tile, s, cg::plus<float>());
  if (tile.thread_rank() == 0) red[tile.meta_group_rank()] = s;
  block.sync();
  s = 0.0f;
  for (int w = 0; w < nwarps; ++w) s += red[w];
  for (int c = block.thread_rank(); c < cols; c += block.size()) y[c] = expf(x[c] - m) / s;
}
