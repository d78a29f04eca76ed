//@app reduce.cu
//@kernel block_sum_cub
//@include <cub/block/block_reduce.cuh>
//@rtol 1e-5
//@what cub::BlockReduce (a new include of the toolkit's own cub header)
__global__ void block_sum_cub(const float* __restrict__ in, float* __restrict__ partial, int n) {
  using Reduce = cub::BlockReduce<float, 256>;
  __shared__ typename Reduce::TempStorage storage;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = Reduce(storage).Sum(i < n ? in[i] : 0.0f);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}
