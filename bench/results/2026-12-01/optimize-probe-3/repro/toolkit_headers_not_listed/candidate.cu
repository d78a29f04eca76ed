// tiny probe app: y = 2x, launched once
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <cuda_runtime_api.h>

// @kernel scale {
__global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
// @kernel scale }

int main() {
  const int n = 1 << 20;
  std::vector<float> h(n, 1.0f);
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(x, y, n);
  cudaDeviceSynchronize();
  cudaMemcpy(h.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("y[0]=%f\n", h[0]);
  return 0;
}
