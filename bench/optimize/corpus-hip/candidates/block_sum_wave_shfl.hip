//@app app.hip
//@kernel block_sum
//@rtol 1e-5
//@what wavefront reduction with __shfl_down (64 lanes), one shared slot per wavefront
__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n) {
  __shared__ float per_wave[256 / 64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  if (lane == 0) per_wave[wave] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < int(blockDim.x / warpSize); ++w) total += per_wave[w];
    partial[blockIdx.x] = total;
  }
}
