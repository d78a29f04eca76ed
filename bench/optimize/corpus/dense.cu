// The corpus's streaming application (issue 27): naive element-wise and matrix-vector kernels, each launched
// twice on the same shapes. Each kernel lies between "// @kernel NAME {" and "// @kernel NAME }" so that
// make_corpus.py can put a candidate's version in its place (the markers are comments: outside the kernel, only
// whitespace and comments may differ).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <vector>

// @kernel gemv {
__global__ void gemv(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) acc += a[(size_t)r * cols + c] * x[c];
  y[r] = acc;
}
// @kernel gemv }

// @kernel saxpy {
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
// @kernel saxpy }

// @kernel daxpy {
__global__ void daxpy(const double* __restrict__ x, double* __restrict__ y, double a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
// @kernel daxpy }

// @kernel relu {
__global__ void relu(const int* __restrict__ in, int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0 ? in[i] : 0;
}
// @kernel relu }

// @kernel haxpy {
__global__ void haxpy(const __half* __restrict__ x, __half* __restrict__ y, __half a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hfma(a, x[i], y[i]);
}
// @kernel haxpy }

// @kernel to_bf16 {
__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(in[i]);
}
// @kernel to_bf16 }

// @kernel scale_t {
template <typename T, int PER_THREAD>
__global__ void scale_t(const T* __restrict__ in, T* __restrict__ out, T s, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
  for (int j = 0; j < PER_THREAD; ++j)
    if (base + j < n) out[base + j] = in[base + j] * s;
}
// @kernel scale_t }

// @kernel bounded {
__global__ void __launch_bounds__(256, 4) bounded(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i] + 1.0f;
}
// @kernel bounded }

// @kernel stencil {
__global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 || i >= n - 2) return;
  out[i] = 0.1f * in[i - 2] + 0.2f * in[i - 1] + 0.4f * in[i] + 0.2f * in[i + 1] + 0.1f * in[i + 2];
}
// @kernel stencil }

// @kernel gemv_t {
__global__ void gemv_t(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) acc += a[(size_t)r * cols + c] * x[c];
  y[r] = acc;
}
// @kernel gemv_t }

template <class T> T* device_copy(const std::vector<T>& h) {
  T* d = nullptr;
  cudaMalloc(&d, h.size() * sizeof(T));
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

int main() {
  const int rows = 4096, cols = 1024, n = 1 << 22;
  std::vector<float> ha((size_t)rows * cols), hx(n), hy(n);
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = float((i * 7919) % 1000) / 1000.0f - 0.5f;
  for (int i = 0; i < n; ++i) hx[i] = float((i * 31) % 977) / 977.0f - 0.3f, hy[i] = float(i % 13) * 0.25f;
  std::vector<double> hdx(hx.begin(), hx.end()), hdy(hy.begin(), hy.end());
  std::vector<int> hi(n);
  for (int i = 0; i < n; ++i) hi[i] = (i * 37) % 201 - 100;
  std::vector<__half> hh(n), hh2(n);
  for (int i = 0; i < n; ++i) hh[i] = __float2half(hx[i]), hh2[i] = __float2half(hy[i]);
  float *a = device_copy(ha), *x = device_copy(hx), *y = device_copy(hy), *gy = device_copy(std::vector<float>(rows));
  double *dx = device_copy(hdx), *dy = device_copy(hdy);
  int *ii = device_copy(hi), *io = device_copy(std::vector<int>(n));
  __half *h1 = device_copy(hh), *h2 = device_copy(hh2);
  __nv_bfloat16* b = nullptr;
  cudaMalloc(&b, n * sizeof(__nv_bfloat16));
  for (int rep = 0; rep < 2; ++rep) {
    gemv<<<rows / 128, 128>>>(a, x, gy, rows, cols);
    saxpy<<<n / 256, 256>>>(x, y, 0.5f, n);
    daxpy<<<n / 256, 256>>>(dx, dy, 0.5, n);
    relu<<<n / 256, 256>>>(ii, io, n);
    haxpy<<<n / 256, 256>>>(h1, h2, __float2half(0.5f), n);
    to_bf16<<<n / 256, 256>>>(x, b, n);
    scale_t<float, 4><<<n / 4 / 256, 256>>>(x, y, 1.5f, n);
    bounded<<<n / 256, 256>>>(x, y, n);
    stencil<<<n / 256, 256>>>(x, y, n);
    gemv_t<<<rows / 128, 128>>>(a, x, gy, rows, cols);
  }
  std::vector<float> out(rows);
  cudaMemcpy(out.data(), gy, rows * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0;
  for (float v : out) s += v;
  std::printf("dense: gemv sum %.6f (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
