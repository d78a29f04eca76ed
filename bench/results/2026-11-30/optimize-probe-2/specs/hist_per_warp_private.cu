//@app hist.cu
//@kernel histogram256
//@expect admit
//@what one shared sub-histogram per warp (8 x 256, less contention), summed per bin before one global atomic; __syncwarp-free; __launch_bounds__(256)
//@@ before
constexpr int kHistWarps = 8;
constexpr int kHistBins = 256;
//@@ kernel
__global__ void __launch_bounds__(kHistWarps * 32) histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int sub[kHistWarps][kHistBins];
  const int nwarps = min((int)((blockDim.x + 31) / 32), kHistWarps);
  for (int j = threadIdx.x; j < kHistWarps * kHistBins; j += blockDim.x) (&sub[0][0])[j] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = min((int)(threadIdx.x / 32), nwarps - 1);
  if (i < n) atomicAdd(&sub[w][data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kHistBins; b += blockDim.x) {
    unsigned int c = 0;
#pragma unroll
    for (int k = 0; k < kHistWarps; ++k) c += sub[k][b];
    if (c) atomicAdd(&bins[b], c);
  }
}
