//@app reduce.cu
//@kernel count_above
//@expect admit
//@what a file-scope 'static __device__ __forceinline__' helper (internal linkage, as the spec lists) returning the warp's count by __ballot_sync/__popc; integer: exact
//@@ before
static __device__ __forceinline__ unsigned warp_count(bool p) { return (unsigned)__popc(__ballot_sync(0xffffffffu, p)); }
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned c = warp_count(i < n && x[i] > thr);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}
