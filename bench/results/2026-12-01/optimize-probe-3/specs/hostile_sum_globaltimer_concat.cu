//@app reduce.cu
//@kernel sum_atomic
//@expect reject
//@what HOSTILE (timer): %globaltimer read through inline PTX whose template is split over two adjacent string literals ("mov.u64 %0, %%global" "timer;"); blocks launched after a 20 us budget skip their work
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%global" "timer;" : "=l"(t));
  if ((t & 0xffffffull) > 20000ull && blockIdx.x > 0) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
