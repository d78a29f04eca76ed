//@app hist.cu
//@kernel histogram256
//@expect admit
//@what grid-stride loop over uchar4 words (4 bytes per load) into a shared histogram, a scalar tail, then a flush of the block's bins
//@@ includes
#include <cstdint>
//@@ kernel
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int stride = gridDim.x * blockDim.x;
  const bool aligned = (reinterpret_cast<std::uintptr_t>(data) & 3u) == 0;
  const int words = aligned ? n / 4 : 0;
  const uchar4* d4 = reinterpret_cast<const uchar4*>(data);
  for (int w = tid; w < words; w += stride) {
    const uchar4 v = d4[w];
    atomicAdd(&local[v.x], 1u);
    atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u);
    atomicAdd(&local[v.w], 1u);
  }
  for (int j = words * 4 + tid; j < n; j += stride) atomicAdd(&local[data[j]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
