//@app reduce.cu
//@kernel count_above
//@expect admit
//@what a block-local __shared__ counter (shared atomics), one global atomicAdd per block; __launch_bounds__(256, 8); integer: exact
//@@ kernel
__global__ void __launch_bounds__(256, 8) count_above(const float* __restrict__ x, unsigned int* __restrict__ count,
                                                      float thr, int n) {
  __shared__ unsigned int block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > thr) atomicAdd(&block_count, 1u);
  __syncthreads();
  if (threadIdx.x == 0 && block_count) atomicAdd(count, block_count);
}
