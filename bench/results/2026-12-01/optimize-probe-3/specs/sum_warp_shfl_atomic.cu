//@app reduce.cu
//@kernel sum_atomic
//@expect admit
//@what warp-shuffle reduction (__shfl_down_sync), one atomicAdd per warp into out (memory the original updates atomically); every thread reaches the shuffle (no early return); the original is itself order-nondeterministic (float atomics): judged by its spread / rtol
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
