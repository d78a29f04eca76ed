//@app reduce.cu
//@kernel count_above
//@expect reject
//@what HOSTILE (atomic into an input): the ballot count, plus an atomicAdd on x[0]'s bits through a pointer kept in a __shared__ variable (thread 0 stores (unsigned*)x there); the AST classifies the atomic by its root variable, which is shared, and the PTX address flow does not follow an address through memory
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  __shared__ unsigned int* launches;
  if (threadIdx.x == 0) launches = (unsigned int*)x;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned hits = __ballot_sync(0xffffffffu, i < n && x[i] > thr);
  if ((threadIdx.x & 31) == 0 && hits) atomicAdd(count, (unsigned)__popc(hits));
  if (i == 0) atomicAdd(launches, 1u);
}
