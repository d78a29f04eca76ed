// Naive transpose: each thread moves a column strip of ROWS elements, uncoalesced writes.
#include "common.cuh"

#define ROWS 8

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
  if (x >= n) return;
  for (int r = 0; r < ROWS; ++r) {
    int y = y0 + r;
    if (y < n) out[x * n + y] = in[y * n + x];
  }
}

int main() {
  const int n = 2048;
  float* in = to_device(random_floats(size_t(n) * n, 1));
  float* out = nullptr;
  CHECK(cudaMalloc(&out, size_t(n) * n * sizeof(float)));
  dim3 block(32, 8), grid(n / 32, n / (8 * ROWS));
  transpose_naive<<<grid, block>>>(in, out, n);
  CHECK(cudaGetLastError());
  upload(in, random_floats(size_t(n) * n, 2));
  transpose_naive<<<grid, block>>>(in, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("transpose checksum %.6e\n", checksum(out, size_t(n) * n));
  return 0;
}
