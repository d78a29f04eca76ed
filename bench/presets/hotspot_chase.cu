// PC-sampling testbed with a known hotspot: each thread follows a random cyclic permutation through a
// 64 MiB table, so every step is a dependent global load that misses the caches (a long-scoreboard stall).
// The load on the line marked HOTSPOT is where the samples must land. Usage: hotspot_chase [STEPS] [LAUNCHES]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

__global__ void chase(const unsigned* __restrict__ next, unsigned* out, unsigned steps) {
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * 977u % (1u << 24);
  for (unsigned s = 0; s < steps; ++s) {
    i = next[i];  // HOTSPOT
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = i;
}

int main(int argc, char** argv) {
  const unsigned steps = argc > 1 ? unsigned(std::atoi(argv[1])) : 20000;
  const int launches = argc > 2 ? std::atoi(argv[2]) : 3;
  const unsigned n = 1u << 24;  // 16 Mi entries, 64 MiB
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937(42));
  std::vector<unsigned> next(n);
  for (unsigned k = 0; k < n; ++k) next[order[k]] = order[(k + 1) % n];  // one cycle through every entry
  unsigned *d_next = nullptr, *d_out = nullptr;
  const int blocks = 264, threads = 128;
  if (cudaMalloc(&d_next, n * sizeof(unsigned)) != cudaSuccess || cudaMalloc(&d_out, blocks * threads * sizeof(unsigned)) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(d_next, next.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
  for (int l = 0; l < launches; ++l) chase<<<blocks, threads>>>(d_next, d_out, steps);
  cudaError_t e = cudaDeviceSynchronize();
  unsigned first = 0;
  cudaMemcpy(&first, d_out, sizeof first, cudaMemcpyDeviceToHost);
  std::printf("chase: %d launches x %u steps, out[0]=%u (%s)\n", launches, steps, first, cudaGetErrorString(e));
  cudaFree(d_next);
  cudaFree(d_out);
  return e == cudaSuccess ? 0 : 1;
}
