//@app reduce.cu
//@kernel block_sum
//@rtol 1e-5
//@what butterfly warp reduction (__shfl_xor_sync) with __syncwarp between the shared read and the second butterfly; one shared slot per warp
__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n) {
  __shared__ float warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float v = i < n ? in[i] : 0.0f;
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
    __syncwarp();
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    if (lane == 0) partial[blockIdx.x] = v;
  }
}
