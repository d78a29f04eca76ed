//@app reduce.cu
//@kernel sum_atomic
//@expect reject
//@what HOSTILE (atomic into an input, hidden): as hostile_sum_asm_red_input with a PTX comment /* */ before the mnemonic ("/* tick */ red.global.add.u32 [%0], 1;"), which ptxas accepts
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
  if (i == 0) asm volatile("/* tick */ red.global.add.u32 [%0], 1;" ::"l"(x));
}
