//@app reduce.cu
//@kernel sum_atomic
//@expect admit
//@what classic shared-memory tree per block (static __shared__ float[1024], blockDim a power of two up to 1024 as launched: 256), sequential addressing, last warp unrolled with __syncwarp, one atomicAdd per block; reassociated
//@@ kernel
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float s[1024];
  const unsigned t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    float v = s[t] + (blockDim.x > 32 ? s[t + 32] : 0.0f);
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (t == 0) atomicAdd(out, v);
  }
}
