// Naive 1-D stencil of radius 4 with weights, read straight from global memory.
#include "common.cuh"

#define RADIUS 4

__global__ void stencil_naive(const float* __restrict__ in, const float* __restrict__ w, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < RADIUS || i >= n - RADIUS) return;
  float acc = 0.0f;
  for (int r = -RADIUS; r <= RADIUS; ++r) acc += w[r + RADIUS] * in[i + r];
  out[i] = acc;
}

int main() {
  const int n = 1 << 22;
  float* in = to_device(random_floats(n, 1));
  float* w = to_device(random_floats(2 * RADIUS + 1, 7));
  float* out = nullptr;
  CHECK(cudaMalloc(&out, size_t(n) * sizeof(float)));
  CHECK(cudaMemset(out, 0, size_t(n) * sizeof(float)));
  stencil_naive<<<n / 256, 256>>>(in, w, out, n);
  CHECK(cudaGetLastError());
  upload(in, random_floats(n, 2));
  stencil_naive<<<n / 256, 256>>>(in, w, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("stencil checksum %.6e\n", checksum(out, n));
  return 0;
}
