// tiny probe app: y = 2x, launched once
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
#include <cuda/barrier>
#include <cooperative_groups.h>

// @kernel scale {
__global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ float xs[256];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  const int base = blockIdx.x * blockDim.x;
  const int len = min((int)blockDim.x, n - base);
  cuda::memcpy_async(cooperative_groups::this_thread_block(), xs, x + base, sizeof(float) * len, bar);
  bar.arrive_and_wait();
  int i = base + threadIdx.x;
  if (i < n) y[i] = 2.0f * xs[threadIdx.x];
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
