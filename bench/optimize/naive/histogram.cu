// Naive histogram: each thread bins a strided slice into shared counters, then adds them to the global bins
// (integer atomics: the result does not depend on their order).
#include "common.cuh"

#define BINS 256

__global__ void histogram_naive(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

static std::vector<unsigned char> random_bytes(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  unsigned s = seed;
  for (size_t i = 0; i < n; ++i) s = s * 1664525u + 1013904223u, v[i] = (unsigned char)((s >> 16) % 97 + (i % 5) * 31);
  return v;
}

int main() {
  const int n = 1 << 22;
  unsigned char* data = to_device(random_bytes(n, 1));
  unsigned* bins = nullptr;
  CHECK(cudaMalloc(&bins, BINS * sizeof(unsigned)));
  CHECK(cudaMemset(bins, 0, BINS * sizeof(unsigned)));
  histogram_naive<<<256, 256>>>(data, bins, n);
  CHECK(cudaGetLastError());
  upload(data, random_bytes(n, 2));
  histogram_naive<<<256, 256>>>(data, bins, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("histogram checksum %.6e\n", checksum(bins, BINS));
  return 0;
}
