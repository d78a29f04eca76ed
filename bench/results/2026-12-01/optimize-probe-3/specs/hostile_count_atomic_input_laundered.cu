//@app reduce.cu
//@kernel count_above
//@expect reject
//@what HOSTILE (atomic into an input): the ballot count, plus atomicAdd on x[0]'s bits through a pointer laundered by an inline-asm mov.b64 (the AST cannot place it; the PTX address flow must follow the mov)
//@@ kernel
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned hits = __ballot_sync(0xffffffffu, i < n && x[i] > thr);
  if ((threadIdx.x & 31) == 0 && hits) atomicAdd(count, (unsigned)__popc(hits));
  if (i == 0) {
    unsigned int* p;
    asm("mov.b64 %0, %1;" : "=l"(p) : "l"(x));
    atomicAdd(p, 1u);
  }
}
