//@app reduce.cu
//@kernel count_above
//@expect admit
//@what __reduce_add_sync (sm_80+) of 0/1 per lane, lane 0 adds the warp's count; integer: exact
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned c = __reduce_add_sync(0xffffffffu, (i < n && x[i] > thr) ? 1u : 0u);
  if ((threadIdx.x & 31) == 0 && c != 0) atomicAdd(count, c);
}
