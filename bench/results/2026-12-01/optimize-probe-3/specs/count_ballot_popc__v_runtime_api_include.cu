//@app reduce.cu
//@kernel count_above
//@expect admit
//@what style: count_ballot_popc with '#include <cuda_runtime_api.h>' and '#include <device_atomic_functions.h>' added (toolkit headers)
//@@ includes
#include <cuda_runtime_api.h>
#include <device_atomic_functions.h>
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned hits = __ballot_sync(0xffffffffu, i < n && x[i] > thr);
  if ((threadIdx.x & 31) == 0 && hits) atomicAdd(count, (unsigned)__popc(hits));
}
