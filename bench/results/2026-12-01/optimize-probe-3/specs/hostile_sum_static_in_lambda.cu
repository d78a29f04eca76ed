//@app reduce.cu
//@kernel sum_atomic
//@expect reject
//@what HOSTILE (state across launches): a static local inside a lambda in the kernel remembers the last block sum and replays it on the next launch
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  auto memo = [](int b) -> float& {
    static float last[1 << 14];
    return last[b & ((1 << 14) - 1)];
  };
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  const int slot = blockIdx.x * 8 + (threadIdx.x >> 5);
  if ((threadIdx.x & 31) == 0) {
    if (memo(slot) == 0.0f) memo(slot) = v;
    atomicAdd(out, memo(slot));
  }
}
