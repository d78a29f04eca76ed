// Naive layer norm: one thread per row: mean, variance, then normalise with gain and bias.
#include "common.cuh"

__global__ void layernorm_naive(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                                float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = x + size_t(r) * cols;
  float mean = 0.0f;
  for (int c = 0; c < cols; ++c) mean += row[c];
  mean /= cols;
  float var = 0.0f;
  for (int c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
  float inv = rsqrtf(var / cols + 1e-5f);
  for (int c = 0; c < cols; ++c) y[size_t(r) * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
}

int main() {
  const int rows = 16384, cols = 256;
  float* x = to_device(random_floats(size_t(rows) * cols, 1));
  float* g = to_device(random_floats(cols, 5));
  float* b = to_device(random_floats(cols, 6));
  float* y = nullptr;
  CHECK(cudaMalloc(&y, size_t(rows) * cols * sizeof(float)));
  layernorm_naive<<<rows / 128, 128>>>(x, g, b, y, rows, cols);
  CHECK(cudaGetLastError());
  upload(x, random_floats(size_t(rows) * cols, 2));
  layernorm_naive<<<rows / 128, 128>>>(x, g, b, y, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("layernorm checksum %.6e\n", checksum(y, size_t(rows) * cols));
  return 0;
}
