//@app reduce.cu
//@kernel count_above
//@expect admit
//@what __ballot_sync of the predicate and __popc: one atomicAdd of the warp's count into count (memory the original updates); integer: exact
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned hits = __ballot_sync(0xffffffffu, i < n && x[i] > thr);
  if ((threadIdx.x & 31) == 0 && hits) atomicAdd(count, (unsigned)__popc(hits));
}
