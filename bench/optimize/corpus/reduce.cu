// The corpus's reduction application (issue 27): per-block sums, row softmax, a histogram and a count, each
// launched twice. Kernels lie between "// @kernel NAME {" and "// @kernel NAME }" (make_corpus.py).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

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

// @kernel block_sum_cub {
__global__ void block_sum_cub(const float* __restrict__ in, float* __restrict__ partial, int n) {
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
// @kernel block_sum_cub }

// @kernel block_sum_cg {
__global__ void block_sum_cg(const float* __restrict__ in, float* __restrict__ partial, int n) {
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
// @kernel block_sum_cg }

// @kernel row_max {
__global__ void row_max(const float* __restrict__ in, float* __restrict__ out, int cols) {
  int row = blockIdx.x;
  if (threadIdx.x != 0) return;
  float m = in[(size_t)row * cols];
  for (int c = 1; c < cols; ++c) m = fmaxf(m, in[(size_t)row * cols + c]);
  out[row] = m;
}
// @kernel row_max }

// @kernel histogram {
__global__ void histogram(const int* __restrict__ v, unsigned* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[v[i]], 1u);
}
// @kernel histogram }

// @kernel count_pos {
__global__ void count_pos(const float* __restrict__ in, unsigned* __restrict__ count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0.0f) atomicAdd(count, 1u);
}
// @kernel count_pos }

int main() {
  const int n = 1 << 22, rows = 4096, cols = 1024, nbins = 64;
  std::vector<float> hin(n);
  for (int i = 0; i < n; ++i) hin[i] = float((i * 7919u) % 2003u) / 2003.0f - 0.5f;
  std::vector<int> hv(n);
  for (int i = 0; i < n; ++i) hv[i] = (i * 31) % nbins;
  float *in, *partial, *mx;
  int* v;
  unsigned *bins, *count;
  cudaMalloc(&in, n * 4);
  cudaMalloc(&partial, (n / 256) * 4);
  cudaMalloc(&mx, rows * 4);
  cudaMalloc(&v, n * 4);
  cudaMalloc(&bins, nbins * 4);
  cudaMalloc(&count, 4);
  cudaMemcpy(in, hin.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(bins, 0, nbins * 4);
  cudaMemset(count, 0, 4);
  for (int rep = 0; rep < 2; ++rep) {
    block_sum<<<n / 256, 256>>>(in, partial, n);
    block_sum_cub<<<n / 256, 256>>>(in, partial, n);
    block_sum_cg<<<n / 256, 256>>>(in, partial, n);
    row_max<<<rows, 32>>>(in, mx, cols);
    histogram<<<n / 256, 256>>>(v, bins, n);
    count_pos<<<n / 256, 256>>>(in, count, n);
  }
  std::vector<float> hp(n / 256);
  cudaMemcpy(hp.data(), partial, hp.size() * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (float p : hp) s += p;
  std::printf("reduce: sum %.6f (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
