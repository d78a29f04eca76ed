//@app reduce.cu
//@kernel count_above
//@expect reject
//@what HOSTILE (atomic into an input): the ballot count, and block 0 adds 16 bytes of shared memory into x[0..3] with the sm_90 bulk reduction cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 (an atomic reduction on global memory spelled 'cp', mentioning .shared)
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  __shared__ __align__(16) unsigned int ones[4];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 4) ones[threadIdx.x] = 1u;
  __syncthreads();
  const unsigned hits = __ballot_sync(0xffffffffu, i < n && x[i] > thr);
  if ((threadIdx.x & 31) == 0 && hits) atomicAdd(count, (unsigned)__popc(hits));
  if (i == 0) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(ones));
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 16;" ::"l"(x), "r"(s) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
