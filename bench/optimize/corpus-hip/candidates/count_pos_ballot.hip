//@app app.hip
//@kernel count_pos
//@what one atomic per wavefront: __ballot and __popcll count the lanes
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long votes = __ballot(i < n && in[i] > 0.0f);
  if (threadIdx.x % warpSize == 0 && votes) atomicAdd(count, unsigned(__popcll(votes)));
}
