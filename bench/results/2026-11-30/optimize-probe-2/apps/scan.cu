// Probe app (round 2): inclusive scan of each 256-element block (Hillis-Steele, double-buffered dynamic shared
// memory), launched twice. Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel block_scan {
__global__ void block_scan(const float* __restrict__ in, float* __restrict__ out, int n) {
  extern __shared__ float buf[];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  int pout = 0, pin = 1;
  buf[pout * blockDim.x + t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (t >= off) buf[pout * blockDim.x + t] = buf[pin * blockDim.x + t] + buf[pin * blockDim.x + t - off];
    else buf[pout * blockDim.x + t] = buf[pin * blockDim.x + t];
    __syncthreads();
  }
  if (i < n) out[i] = buf[pout * blockDim.x + t];
}
// @kernel block_scan }

int main() {
  const int n = 1 << 24;
  std::vector<float> hin(n);
  for (int i = 0; i < n; ++i) hin[i] = float((i * 97) % 31) * 0.125f - 1.0f;
  float *in, *out;
  cudaMalloc(&in, n * 4);
  cudaMalloc(&out, n * 4);
  cudaMemcpy(in, hin.data(), n * 4, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) block_scan<<<n / 256, 256, 2 * 256 * sizeof(float)>>>(in, out, n);
  std::vector<float> hout(n);
  cudaMemcpy(hout.data(), out, n * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 255; i < n; i += 256) s += hout[i];
  std::printf("scan: sum of block totals %.6f (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
