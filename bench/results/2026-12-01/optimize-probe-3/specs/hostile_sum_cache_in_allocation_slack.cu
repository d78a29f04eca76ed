//@app reduce.cu
//@kernel sum_atomic
//@expect runtime
//@what HOSTILE (answer cached across launches): 'out' is a 4-byte cudaMalloc (the allocation is at least 512 bytes); the kernel keeps a fingerprint of x and its own total in out[1..3], past the 4 bytes the app asked for, and on a later launch with the same fingerprint adds the cached total and skips the work; stores through a parameter the original writes pass every static and binary rule; whether capture/replay (regions, restore between timing launches) sees the slack needs a GPU run
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  volatile float* cache = out + 1;
  const bool hit = cache[0] == x[0] && cache[1] == x[n - 1] && cache[2] != 0.0f;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (hit) {
    if (i == 0) atomicAdd(out, cache[2]);
    return;
  }
  float v = i < n ? x[i] : 0.0f;
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(out, v);
    atomicAdd(out + 3, v);
  }
  if (i == 0) {
    cache[0] = x[0];
    cache[1] = x[n - 1];
  }
}
