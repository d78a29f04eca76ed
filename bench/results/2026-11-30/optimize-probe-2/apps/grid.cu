// Probe app (round 2): a 2D 5-point Jacobi stencil and a naive matrix transpose, each launched twice.
// Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel stencil5 {
__global__ void stencil5(const float* __restrict__ in, float* __restrict__ out, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t i = (size_t)y * nx + x;
  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}
// @kernel stencil5 }

// @kernel transpose_naive {
__global__ void transpose_naive(const float* __restrict__ a, float* __restrict__ at, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) at[(size_t)c * rows + r] = a[(size_t)r * cols + c];
}
// @kernel transpose_naive }

int main() {
  const int nx = 4096, ny = 4096, rows = 2048, cols = 8192;
  std::vector<float> hin((size_t)nx * ny), ha((size_t)rows * cols);
  for (size_t i = 0; i < hin.size(); ++i) hin[i] = float((i * 37) % 1009) * 0.001f;
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = float(i % 4093) - 2046.0f;
  float *in, *out, *a, *at;
  cudaMalloc(&in, hin.size() * 4);
  cudaMalloc(&out, hin.size() * 4);
  cudaMalloc(&a, ha.size() * 4);
  cudaMalloc(&at, ha.size() * 4);
  cudaMemcpy(in, hin.data(), hin.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(out, hin.data(), hin.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) {
    stencil5<<<dim3(nx / 32, ny / 8), dim3(32, 8)>>>(in, out, nx, ny);
    transpose_naive<<<dim3(cols / 32, rows / 32), dim3(32, 32)>>>(a, at, rows, cols);
  }
  std::vector<float> hout(hin.size()), hat(ha.size());
  cudaMemcpy(hout.data(), out, hout.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hat.data(), at, hat.size() * 4, cudaMemcpyDeviceToHost);
  double s = 0, t = 0;
  for (float v : hout) s += v;
  for (size_t i = 0; i < hat.size(); i += 3) t += hat[i];
  std::printf("grid: stencil %.6f transpose %.6f (%s)\n", s, t, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
