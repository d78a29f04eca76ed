// Probe app (round 3): a full-array float sum with one atomicAdd per element, a count of the elements above a
// threshold (one atomicAdd per hit), and a GEMV y = A x with one thread per row. Each launched twice (the sum and the
// count accumulate over both launches). Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel sum_atomic {
__global__ void sum_atomic(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}
// @kernel sum_atomic }

// @kernel count_above {
__global__ void count_above(const float* __restrict__ x, unsigned int* __restrict__ count, float thr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > thr) atomicAdd(count, 1u);
}
// @kernel count_above }

// @kernel gemv {
__global__ void gemv(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                     int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) acc += A[(size_t)r * cols + c] * x[c];
    y[r] = acc;
  }
}
// @kernel gemv }

int main() {
  const int n = 1 << 22;
  const int rows = 4096, cols = 4096;
  std::vector<float> hx(n), hA((size_t)rows * cols), hv(cols);
  for (int i = 0; i < n; ++i) hx[i] = float((i * 61) % 101) * 0.01f - 0.5f;
  for (size_t i = 0; i < (size_t)rows * cols; ++i) hA[i] = float((i * 13) % 29) * 0.02f - 0.28f;
  for (int c = 0; c < cols; ++c) hv[c] = float(c % 11) * 0.1f - 0.5f;
  float *x, *out, *A, *v, *y;
  unsigned int* count;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMalloc(&count, sizeof(unsigned int));
  cudaMalloc(&A, (size_t)rows * cols * sizeof(float));
  cudaMalloc(&v, cols * sizeof(float));
  cudaMalloc(&y, rows * sizeof(float));
  cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(A, hA.data(), (size_t)rows * cols * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), cols * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, sizeof(float));
  cudaMemset(count, 0, sizeof(unsigned int));
  for (int rep = 0; rep < 2; ++rep) {
    sum_atomic<<<(n + 255) / 256, 256>>>(x, out, n);
    count_above<<<(n + 255) / 256, 256>>>(x, count, 0.25f, n);
    gemv<<<(rows + 255) / 256, 256>>>(A, v, y, rows, cols);
  }
  cudaDeviceSynchronize();
  float hs;
  unsigned int hcnt;
  std::vector<float> hy(rows);
  cudaMemcpy(&hs, out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(&hcnt, count, sizeof(unsigned int), cudaMemcpyDeviceToHost);
  cudaMemcpy(hy.data(), y, rows * sizeof(float), cudaMemcpyDeviceToHost);
  double sy = 0;
  for (int r = 0; r < rows; ++r) sy += hy[r];
  std::printf("reduce: sum %.4f count %u gemv %.4f (%s)\n", hs, hcnt, sy, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
