// tiny probe app: y = 2x, launched once
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel scale {
__global__ void scale(const float* __restrict__ x, float* __restrict__ y, int n) {
  __shared__ __align__(16) unsigned int ones[4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 4) ones[threadIdx.x] = 1u;
  __syncthreads();
  if (i < n) y[i] = 2.0f * x[i];
  if (i == 0) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(ones));
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], 16;" ::"l"(x), "r"(s) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
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
