//@app reduce.cu
//@kernel sum_atomic
//@expect admit
//@what cub::BlockReduce<float, 256> (the app launches 256 threads; other block sizes take the per-element path, a block-uniform test) and one atomicAdd per block into out; reassociated
//@@ includes
#include <cub/block/block_reduce.cuh>
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockDim.x != 256 || blockDim.y != 1 || blockDim.z != 1) {
    if (i < n) atomicAdd(out, x[i]);
    return;
  }
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage temp;
  const float s = BlockReduce(temp).Sum(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(out, s);
}
