//@app app.hip
//@kernel block_sum
//@include <hip/hip_cooperative_groups.h>
//@what the tree reduction synchronised through cooperative groups' thread block
__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n) {
  namespace cg = cooperative_groups;
  cg::thread_block block = cg::this_thread_block();
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[block.thread_rank()] = i < n ? in[i] : 0.0f;
  block.sync();
  for (unsigned step = block.size() / 2; step > 0; step /= 2) {
    if (block.thread_rank() < step) s[block.thread_rank()] += s[block.thread_rank() + step];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[blockIdx.x] = s[0];
}
