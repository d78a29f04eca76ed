//@app reduce.cu
//@kernel sum_atomic
//@expect admit
//@what style: sum_warp_shfl_atomic with FULL_MASK / WARP_SZ macros defined before the kernel and #undef'd after it, and a function-like macro for the shuffle step
//@@ before
#define FULL_MASK 0xffffffffu
#define WARP_SZ 32
#define SHFL_STEP(v, off) ((v) + __shfl_down_sync(FULL_MASK, (v), (off)))
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
#pragma unroll
  for (int off = WARP_SZ / 2; off > 0; off >>= 1) v = SHFL_STEP(v, off);
  if ((threadIdx.x & (WARP_SZ - 1)) == 0) atomicAdd(out, v);
}
//@@ after
#undef SHFL_STEP
#undef WARP_SZ
#undef FULL_MASK
