//@app hist.cu
//@kernel histogram256
//@expect admit
//@what [style of hist_smem_private] enum class for the bin count, a using alias for the counter type; privatised shared-memory histogram (atomicAdd on __shared__), one global atomicAdd per non-empty bin per block; the original already updates bins atomically
//@@ before
enum class HistShape : int { kBins = 256 };
using counter_t = unsigned int;
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  constexpr int kBins = static_cast<int>(HistShape::kBins);
  __shared__ counter_t local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    const counter_t c = local[b];
    if (c) atomicAdd(&bins[b], c);
  }
}
