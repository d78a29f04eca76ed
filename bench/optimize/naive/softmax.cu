// Naive row softmax: one thread per row, three passes over the row (max, sum of exponentials, normalise).
#include "common.cuh"

__global__ void softmax_naive(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = x + size_t(r) * cols;
  float m = row[0];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, row[c]);
  float sum = 0.0f;
  for (int c = 0; c < cols; ++c) sum += expf(row[c] - m);
  for (int c = 0; c < cols; ++c) y[size_t(r) * cols + c] = expf(row[c] - m) / sum;
}

int main() {
  const int rows = 16384, cols = 256;
  float* x = to_device(random_floats(size_t(rows) * cols, 1));
  float* y = nullptr;
  CHECK(cudaMalloc(&y, size_t(rows) * cols * sizeof(float)));
  softmax_naive<<<rows / 128, 128>>>(x, y, rows, cols);
  CHECK(cudaGetLastError());
  upload(x, random_floats(size_t(rows) * cols, 2));
  softmax_naive<<<rows / 128, 128>>>(x, y, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("softmax checksum %.6e\n", checksum(y, size_t(rows) * cols));
  return 0;
}
