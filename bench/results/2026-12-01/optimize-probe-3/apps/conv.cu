// Probe app (round 3): direct 3x3 convolution, NCHW with one image, C input and K output channels, zero padding 1,
// one thread per output element; the kernel copies all weights into dynamic shared memory, whose size the launch
// passes. Launched twice. Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel conv2d_3x3 {
__global__ void conv2d_3x3(const float* __restrict__ in, const float* __restrict__ wt, const float* __restrict__ bias,
                           float* __restrict__ out, int C, int K, int H, int W) {
  extern __shared__ float sw[];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int j = tid; j < K * C * 9; j += blockDim.x * blockDim.y) sw[j] = wt[j];
  __syncthreads();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z;
  if (x >= W || y >= H) return;
  float acc = bias[k];
  for (int c = 0; c < C; ++c)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int yy = y + dy, xx = x + dx;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          acc += in[((size_t)c * H + yy) * W + xx] * sw[((k * C + c) * 3 + (dy + 1)) * 3 + (dx + 1)];
      }
  out[((size_t)k * H + y) * W + x] = acc;
}
// @kernel conv2d_3x3 }

int main() {
  const int C = 4, K = 8, H = 512, W = 512;
  std::vector<float> hin((size_t)C * H * W), hw(K * C * 9), hb(K);
  for (size_t i = 0; i < hin.size(); ++i) hin[i] = float((i * 43) % 37) * 0.05f - 0.9f;
  for (int i = 0; i < K * C * 9; ++i) hw[i] = float((i * 7) % 9) * 0.1f - 0.4f;
  for (int k = 0; k < K; ++k) hb[k] = 0.01f * k;
  float *in, *w, *b, *out;
  cudaMalloc(&in, hin.size() * sizeof(float));
  cudaMalloc(&w, hw.size() * sizeof(float));
  cudaMalloc(&b, K * sizeof(float));
  cudaMalloc(&out, (size_t)K * H * W * sizeof(float));
  cudaMemcpy(in, hin.data(), hin.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), hw.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(b, hb.data(), K * sizeof(float), cudaMemcpyHostToDevice);
  dim3 block(16, 16), grid((W + 15) / 16, (H + 15) / 16, K);
  for (int rep = 0; rep < 2; ++rep) conv2d_3x3<<<grid, block, K * C * 9 * sizeof(float)>>>(in, w, b, out, C, K, H, W);
  cudaDeviceSynchronize();
  std::vector<float> hout((size_t)K * H * W);
  cudaMemcpy(hout.data(), out, hout.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0;
  for (size_t i = 0; i < hout.size(); i += 67) s += hout[i];
  std::printf("conv: sampled sum %.6f (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
