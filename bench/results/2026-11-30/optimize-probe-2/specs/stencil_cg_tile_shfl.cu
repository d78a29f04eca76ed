//@app grid.cu
//@kernel stencil5
//@expect admit
//@what as stencil_warp_shfl_neighbours with a cooperative_groups tile (tile.shfl_up / tile.shfl_down), the vertical neighbours from a padded shared column buffer
//@@ includes
#include <cooperative_groups.h>
//@@ before
namespace cg = cooperative_groups;
//@@ kernel
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  __shared__ float rowsbuf[8 + 2][32 + 1];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (blockDim.x != 32 || blockDim.y != 8) {
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    const size_t i = (size_t)y * nx + x;
    out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
    return;
  }
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  auto at = [&](int gx, int gy) { return (gx < nx && gy >= 0 && gy < ny) ? in[(size_t)gy * nx + gx] : 0.0f; };
  const float c = at(x, y);
  rowsbuf[threadIdx.y + 1][threadIdx.x] = c;
  if (threadIdx.y == 0) rowsbuf[0][threadIdx.x] = at(x, y - 1);
  if (threadIdx.y == 7) rowsbuf[9][threadIdx.x] = at(x, y + 1);
  float l = tile.shfl_up(c, 1);
  float r = tile.shfl_down(c, 1);
  cg::this_thread_block().sync();
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const size_t i = (size_t)y * nx + x;
  if (tile.thread_rank() == 0) l = in[i - 1];
  if (tile.thread_rank() == 31) r = in[i + 1];
  out[i] = 0.5f * c + 0.125f * (l + r + rowsbuf[threadIdx.y][threadIdx.x] + rowsbuf[threadIdx.y + 2][threadIdx.x]);
}
