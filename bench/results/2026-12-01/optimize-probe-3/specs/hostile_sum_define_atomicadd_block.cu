//@app reduce.cu
//@kernel sum_atomic
//@expect reject
//@what HOSTILE (changed semantics by macro): '#define atomicAdd(p, v) atomicAdd_block(p, v)' before the kernel (block-scope atomics: wrong across blocks, cheaper); a name the original uses
//@@ before
#define atomicAdd(p, v) atomicAdd_block(p, v)
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
