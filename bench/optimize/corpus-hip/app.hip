// The HIP corpus application (issue 27): the kernels an AMD engineer would optimize first (an axpy, a block sum,
// a row maximum, a gemv, a count, a half-precision scale, a transpose), each launched twice. Kernels lie between
// "// @kernel NAME {" and "// @kernel NAME }" (../corpus/make_corpus.py). Compiled by hipcc; not run here (no AMD
// GPU): tests/test_optimize_corpus.cpp checks its candidates against the static and binary gates.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cstdio>
#include <vector>

// @kernel saxpy {
__global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
// @kernel saxpy }

// @kernel block_sum {
__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partial, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
// @kernel block_sum }

// @kernel row_max {
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x;
  if (threadIdx.x != 0) return;
  float m = in[(size_t)row * cols];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, in[(size_t)row * cols + c]);
  out[row] = m;
}
// @kernel row_max }

// @kernel gemv {
__global__ void gemv(const float* __restrict__ a, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
  for (int c = 0; c < cols; ++c) acc += a[(size_t)r * cols + c] * x[c];
  y[r] = acc;
}
// @kernel gemv }

// @kernel count_pos {
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0.0f) atomicAdd(count, 1u);
}
// @kernel count_pos }

// @kernel hscale {
__global__ void hscale(const __half* __restrict__ x, __half* __restrict__ y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(a * __half2float(x[i]));
}
// @kernel hscale }

// @kernel transpose {
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int w, int h) {
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < w && y < h) out[(size_t)x * h + y] = in[(size_t)y * w + x];
}
// @kernel transpose }

int main() {
  const int n = 1 << 22, rows = 4096, cols = 1024, w = 2048, h = 2048;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = float((i * 7919u) % 2003u) / 2003.0f - 0.5f;
  float *x, *y, *partial, *mx, *a, *gx, *gy, *tin, *tout;
  unsigned* count;
  __half *hx, *hy;
  hipMalloc(&x, n * sizeof(float));
  hipMalloc(&y, n * sizeof(float));
  hipMalloc(&partial, (n / 256) * sizeof(float));
  hipMalloc(&mx, rows * sizeof(float));
  hipMalloc(&a, (size_t)rows * cols * sizeof(float));
  hipMalloc(&gx, cols * sizeof(float));
  hipMalloc(&gy, rows * sizeof(float));
  hipMalloc(&tin, (size_t)w * h * sizeof(float));
  hipMalloc(&tout, (size_t)w * h * sizeof(float));
  hipMalloc(&count, sizeof(unsigned));
  hipMalloc(&hx, n * sizeof(__half));
  hipMalloc(&hy, n * sizeof(__half));
  hipMemcpy(x, host.data(), n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(y, host.data(), n * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(a, host.data(), (size_t)rows * cols * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(gx, host.data(), cols * sizeof(float), hipMemcpyHostToDevice);
  hipMemcpy(tin, host.data(), (size_t)w * h * sizeof(float), hipMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) {
    saxpy<<<n / 256, 256>>>(x, y, 2.0f, n);
    block_sum<<<n / 256, 256>>>(x, partial, n);
    row_max<<<rows, 64>>>(a, mx, cols);
    gemv<<<rows / 256, 256>>>(a, gx, gy, rows, cols);
    hipMemset(count, 0, sizeof(unsigned));
    count_pos<<<n / 256, 256>>>(x, count, n);
    hscale<<<n / 256, 256>>>(hx, hy, 0.5f, n);
    transpose<<<dim3(w / 16, h / 16), dim3(16, 16)>>>(tin, tout, w, h);
  }
  float first = 0;
  hipMemcpy(&first, partial, sizeof(float), hipMemcpyDeviceToHost);
  std::printf("partial[0]=%f\n", first);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
