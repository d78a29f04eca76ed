#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(const float* in, float* out, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] / s;
}

int main() {
  float *a, *b;
  cudaMalloc(&a, 1024 * 4);
  cudaMalloc(&b, 1024 * 4);
  cudaMemset(a, 0, 1024 * 4);
  scale<<<4, 256>>>(a, b, 1024, 3.0f);
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
