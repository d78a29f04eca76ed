// Probe app (round 2): a 256-bin byte histogram with one global atomic per element, launched twice.
// Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel histogram256 {
__global__ void histogram256(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[data[i]], 1u);
}
// @kernel histogram256 }

int main() {
  const int n = 1 << 24;
  std::vector<unsigned char> hd(n);
  for (int i = 0; i < n; ++i) hd[i] = (unsigned char)(((unsigned)i * 2654435761u) >> 13);
  unsigned char* d;
  unsigned int* bins;
  cudaMalloc(&d, n);
  cudaMalloc(&bins, 256 * sizeof(unsigned int));
  cudaMemcpy(d, hd.data(), n, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  for (int rep = 0; rep < 2; ++rep) histogram256<<<(n + 255) / 256, 256>>>(d, bins, n);
  std::vector<unsigned int> hb(256);
  cudaMemcpy(hb.data(), bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  unsigned long long s = 0;
  for (int b = 0; b < 256; ++b) s += (unsigned long long)hb[b] * (b + 1);
  std::printf("hist: checksum %llu (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
