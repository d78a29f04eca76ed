//@app reduce.cu
//@kernel sum_atomic
//@expect admit
//@what thread coarsening: the first n/4 threads read a float4 each (x is cudaMalloc-aligned), the first n%4 threads also a tail element, cg::reduce over each 32-thread tile, one atomicAdd per tile; the other threads add 0 (no early return before the collective); reassociated
//@@ includes
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
//@@ before
namespace cgx = cooperative_groups;
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  const cgx::thread_block_tile<32> tile = cgx::tiled_partition<32>(cgx::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int nv = n >> 2;
  float v = 0.0f;
  if (i < nv) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(x) + i);
    v = (q.x + q.y) + (q.z + q.w);
  }
  if (i < n - nv * 4) v += x[nv * 4 + i];
  v = cgx::reduce(tile, v, cgx::plus<float>());
  if (tile.thread_rank() == 0 && v != 0.0f) atomicAdd(out, v);
}
