//@app reduce.cu
//@kernel block_sum
//@rtol 1e-5
//@what warp-shuffle reduction (__shfl_down_sync), then one shared slot per warp: 2 barriers instead of 9
__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n) {
  __shared__ float warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) partial[blockIdx.x] = v;
  }
}
