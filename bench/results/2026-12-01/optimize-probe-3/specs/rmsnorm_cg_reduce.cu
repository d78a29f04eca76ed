//@app half.cu
//@kernel rmsnorm_bf16
//@expect admit
//@what warp per row as rmsnorm_warp_per_row_bf162 with cg::reduce(tile32, v, cg::plus<float>()) (<cooperative_groups/reduce.h>) and cg::thread_block_tile<32>; namespace alias inside the kernel; reassociated sum: rtol
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
//@@ kernel
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  namespace cg = cooperative_groups;
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int block_end = min(rows, (int)((blockIdx.x + 1) * blockDim.x));
  for (int r = blockIdx.x * blockDim.x + warp.meta_group_rank() * 32, j = 0; j < 32 && r < block_end; ++j, ++r) {
    const __nv_bfloat16* xr = x + (size_t)r * cols;
    float ss = 0.0f;
    for (int c = warp.thread_rank(); c < cols; c += 32) {
      const float v = __bfloat162float(xr[c]);
      ss += v * v;
    }
    ss = cg::reduce(warp, ss, cg::plus<float>());
    const float rs = rsqrtf(ss / cols + eps);
    for (int c = warp.thread_rank(); c < cols; c += 32)
      y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(xr[c]) * rs * __bfloat162float(w[c]));
  }
}
