// Naive matrix multiply: one thread per C element, the k loop reads a row of A and a column of B.
#include "common.cuh"

__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

int main() {
  const int n = 512;
  float* a = to_device(random_floats(size_t(n) * n, 1));
  float* b = to_device(random_floats(size_t(n) * n, 2));
  float* c = nullptr;
  CHECK(cudaMalloc(&c, size_t(n) * n * sizeof(float)));
  dim3 block(16, 16), grid(n / 16, n / 16);
  matmul_naive<<<grid, block>>>(a, b, c, n);
  CHECK(cudaGetLastError());
  upload(a, random_floats(size_t(n) * n, 3));
  matmul_naive<<<grid, block>>>(a, b, c, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("matmul checksum %.6e\n", checksum(c, size_t(n) * n));
  return 0;
}
