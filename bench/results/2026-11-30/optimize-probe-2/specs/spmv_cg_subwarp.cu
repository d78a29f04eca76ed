//@app spmv.cu
//@kernel spmv_csr
//@expect admit
//@what cooperative groups: a 32-thread tile walks its lanes' 32 rows, cg::reduce of each row's partial sums, results kept by the owning lane
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
//@@ before
namespace cg = cooperative_groups;
//@@ kernel
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int lane = (int)warp.thread_rank();
  const int first = (int)(blockIdx.x * blockDim.x + threadIdx.x) - lane;
  float mine = 0.0f;
  for (int r = 0; r < 32 && first + r < rows; ++r) {
    const int row = first + r;
    float part = 0.0f;
    for (int k = rowptr[row] + lane; k < rowptr[row + 1]; k += 32) part += vals[k] * x[colidx[k]];
    const float total = cg::reduce(warp, part, cg::plus<float>());
    if (lane == r) mine = total;
  }
  if (first + lane < rows) y[first + lane] = mine;
}
