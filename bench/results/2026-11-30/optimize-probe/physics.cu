// Probe application (not the project's): a time-step kernel whose parameter is named `time`, and one that
// scales by a `clock_rate` parameter (a GPU clock in kHz, as cudaDeviceProp::clockRate gives).
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel advance {
__global__ void advance(float* __restrict__ pos, const float* __restrict__ vel, float time, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] = pos[i] + vel[i] * time;
}
// @kernel advance }

// @kernel cycles_to_ms {
__global__ void cycles_to_ms(const long long* __restrict__ cycles, float* __restrict__ ms, int clock_khz, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) ms[i] = float(cycles[i]) / float(clock_khz);
}
// @kernel cycles_to_ms }

int main() {
  const int n = 1 << 22;
  std::vector<float> hp(n), hv(n);
  std::vector<long long> hc(n);
  for (int i = 0; i < n; ++i) hp[i] = float(i % 97), hv[i] = float(i % 13) * 0.5f - 3.0f, hc[i] = 1000LL * (i % 1009);
  float *p, *v, *ms;
  long long* c;
  cudaMalloc(&p, n * 4);
  cudaMalloc(&v, n * 4);
  cudaMalloc(&ms, n * 4);
  cudaMalloc(&c, n * 8);
  cudaMemcpy(p, hp.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc.data(), n * 8, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) {
    advance<<<n / 256, 256>>>(p, v, 0.01f, n);
    cycles_to_ms<<<n / 256, 256>>>(c, ms, 1980000, n);
  }
  cudaMemcpy(hp.data(), p, n * 4, cudaMemcpyDeviceToHost);
  std::printf("physics: pos[1] %.6f (%s)\n", hp[1], cudaGetErrorString(cudaGetLastError()));
  return 0;
}
