// Naive 2-D convolution with a 5x5 filter, zero padding, straight from global memory.
#include "common.cuh"

#define K 5

__global__ void conv2d_naive(const float* __restrict__ in, const float* __restrict__ filt, float* __restrict__ out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.0f;
  for (int fy = 0; fy < K; ++fy) {
    for (int fx = 0; fx < K; ++fx) {
      int sx = x + fx - K / 2, sy = y + fy - K / 2;
      if (sx >= 0 && sx < w && sy >= 0 && sy < h) acc += filt[fy * K + fx] * in[sy * w + sx];
    }
  }
  out[y * w + x] = acc;
}

int main() {
  const int w = 2048, h = 2048;
  float* in = to_device(random_floats(size_t(w) * h, 1));
  float* f = to_device(random_floats(K * K, 9));
  float* out = nullptr;
  CHECK(cudaMalloc(&out, size_t(w) * h * sizeof(float)));
  dim3 block(32, 8), grid(w / 32, h / 8);
  conv2d_naive<<<grid, block>>>(in, f, out, w, h);
  CHECK(cudaGetLastError());
  upload(in, random_floats(size_t(w) * h, 2));
  conv2d_naive<<<grid, block>>>(in, f, out, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("conv2d checksum %.6e\n", checksum(out, size_t(w) * h));
  return 0;
}
