// The corpus's tiled application (issue 27): naive transpose and matrix multiply, each launched twice. Kernels
// lie between "// @kernel NAME {" and "// @kernel NAME }" (make_corpus.py).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel transpose {
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
// @kernel transpose }

// @kernel matmul {
__global__ void matmul(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
// @kernel matmul }

// @kernel matmul_rb {
__global__ void matmul_rb(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
// @kernel matmul_rb }

// @kernel conv1d {
__global__ void conv1d(const float* __restrict__ in, const float* __restrict__ w, float* __restrict__ out, int n, int taps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - taps) return;
  float acc = 0.0f;
  for (int t = 0; t < taps; ++t) acc += in[i + t] * w[t];
  out[i] = acc;
}
// @kernel conv1d }

int main() {
  const int rows = 4096, cols = 4096, n = 1024, len = 1 << 22, taps = 32;
  std::vector<float> hin((size_t)rows * cols), ha((size_t)n * n), hb((size_t)n * n), hw(taps);
  for (size_t i = 0; i < hin.size(); ++i) hin[i] = float(i % 1021) * 0.01f;
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = float((i * 13) % 101) / 101.0f - 0.5f, hb[i] = float((i * 7) % 89) / 89.0f;
  for (int t = 0; t < taps; ++t) hw[t] = 1.0f / float(t + 1);
  float *in, *out, *a, *b, *c, *w, *o1;
  cudaMalloc(&in, hin.size() * 4);
  cudaMalloc(&out, hin.size() * 4);
  cudaMalloc(&a, ha.size() * 4);
  cudaMalloc(&b, hb.size() * 4);
  cudaMalloc(&c, ha.size() * 4);
  cudaMalloc(&w, taps * 4);
  cudaMalloc(&o1, (size_t)len * 4);
  cudaMemcpy(in, hin.data(), hin.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(a, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), taps * 4, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) {
    transpose<<<dim3(cols / 32, rows / 8), dim3(32, 8)>>>(in, out, rows, cols);
    matmul<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, b, c, n);
    matmul_rb<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, b, c, n);
    conv1d<<<len / 256, 256>>>(in, w, o1, len, taps);
  }
  std::vector<float> hc((size_t)n * n);
  cudaMemcpy(hc.data(), c, hc.size() * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (float v : hc) s += v;
  std::printf("tiles: matmul sum %.6f (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
