// Probe app (round 2): row softmax and layernorm over a rows x cols matrix, one block per row, each launched twice.
// Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <vector>

// @kernel softmax_rows {
__global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float row_max;
  __shared__ float row_sum;
  const int row = blockIdx.x;
  if (row >= rows) return;
  const float* x = in + (size_t)row * cols;
  float* y = out + (size_t)row * cols;
  if (threadIdx.x == 0) {
    float m = x[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, x[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(x[c] - m);
    row_max = m;
    row_sum = s;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = expf(x[c] - row_max) / row_sum;
}
// @kernel softmax_rows }

// @kernel layernorm_rows {
__global__ void layernorm_rows(const float* in, const float* gamma, const float* beta, float* out, int cols, float eps) {
  __shared__ float mean_s;
  __shared__ float rstd_s;
  const int row = blockIdx.x;
  const float* x = in + (size_t)row * cols;
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += x[c];
    const float mean = s / cols;
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v += (x[c] - mean) * (x[c] - mean);
    mean_s = mean;
    rstd_s = rsqrtf(v / cols + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[(size_t)row * cols + c] = (x[c] - mean_s) * rstd_s * gamma[c] + beta[c];
}
// @kernel layernorm_rows }

int main() {
  const int rows = 4096, cols = 1024;
  std::vector<float> hx((size_t)rows * cols), hg(cols), hb(cols);
  for (size_t i = 0; i < hx.size(); ++i) hx[i] = float((i * 2654435761u) % 4099u) / 4099.0f * 8.0f - 4.0f;
  for (int c = 0; c < cols; ++c) hg[c] = 1.0f + 0.001f * c, hb[c] = 0.01f * (c % 17);
  float *x, *y, *g, *b, *z;
  cudaMalloc(&x, hx.size() * 4);
  cudaMalloc(&y, hx.size() * 4);
  cudaMalloc(&z, hx.size() * 4);
  cudaMalloc(&g, cols * 4);
  cudaMalloc(&b, cols * 4);
  cudaMemcpy(x, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(g, hg.data(), cols * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), cols * 4, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) {
    softmax_rows<<<rows, 256>>>(x, y, rows, cols);
    layernorm_rows<<<rows, 256>>>(x, g, b, z, cols, 1e-5f);
  }
  std::vector<float> hy(hx.size()), hz(hx.size());
  cudaMemcpy(hy.data(), y, hy.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(hz.data(), z, hz.size() * 4, cudaMemcpyDeviceToHost);
  double s = 0, t = 0;
  for (size_t i = 0; i < hy.size(); ++i) s += hy[i], t += hz[i] * (double)(i % 7);
  std::printf("softmax: sum %.6f layernorm: %.6f (%s)\n", s, t, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
