// Probe app (round 3): fp16/bf16 kernels: bias + sigmoid-GELU on __half (half arithmetic), RMSNorm over the rows of a
// bf16 matrix with fp32 accumulation (one thread per row), and an fp16 GEMM with fp32 accumulation (one thread per
// output). Each launched twice. Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <vector>

// @kernel bias_gelu_half {
__global__ void bias_gelu_half(const __half* __restrict__ x, const __half* __restrict__ bias, __half* __restrict__ y,
                               int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    __half v = __hadd(x[i], bias[i % cols]);
    __half e = hexp(__hmul(__float2half(-1.702f), v));
    y[i] = __hdiv(v, __hadd(__float2half(1.0f), e));
  }
}
// @kernel bias_gelu_half }

// @kernel rmsnorm_bf16 {
__global__ void rmsnorm_bf16(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                             __nv_bfloat16* __restrict__ y, int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float ss = 0.0f;
  for (int c = 0; c < cols; ++c) {
    float v = __bfloat162float(x[(size_t)r * cols + c]);
    ss += v * v;
  }
  float rs = rsqrtf(ss / cols + eps);
  for (int c = 0; c < cols; ++c)
    y[(size_t)r * cols + c] = __float2bfloat16(__bfloat162float(x[(size_t)r * cols + c]) * rs * __bfloat162float(w[c]));
}
// @kernel rmsnorm_bf16 }

// @kernel hgemm_naive {
__global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = acc;
  }
}
// @kernel hgemm_naive }

int main() {
  const int rows = 2048, cols = 1024;
  const int n = rows * cols;
  std::vector<__half> hx(n), hbias(cols);
  std::vector<__nv_bfloat16> bx(n), bw(cols);
  for (int i = 0; i < n; ++i) {
    hx[i] = __float2half(float((i * 29) % 41) * 0.1f - 2.0f);
    bx[i] = __float2bfloat16(float((i * 31) % 43) * 0.05f - 1.0f);
  }
  for (int c = 0; c < cols; ++c) {
    hbias[c] = __float2half(float(c % 13) * 0.05f - 0.3f);
    bw[c] = __float2bfloat16(1.0f + float(c % 7) * 0.01f);
  }
  __half *x, *bias, *y;
  __nv_bfloat16 *xb, *wb, *yb;
  cudaMalloc(&x, n * sizeof(__half));
  cudaMalloc(&y, n * sizeof(__half));
  cudaMalloc(&bias, cols * sizeof(__half));
  cudaMalloc(&xb, n * sizeof(__nv_bfloat16));
  cudaMalloc(&yb, n * sizeof(__nv_bfloat16));
  cudaMalloc(&wb, cols * sizeof(__nv_bfloat16));
  cudaMemcpy(x, hx.data(), n * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(bias, hbias.data(), cols * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(xb, bx.data(), n * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);
  cudaMemcpy(wb, bw.data(), cols * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice);

  const int M = 512, N = 512, K = 512;
  std::vector<__half> ha(M * K), hb(K * N);
  for (int i = 0; i < M * K; ++i) ha[i] = __float2half(float((i * 7) % 19) * 0.125f - 1.0f);
  for (int i = 0; i < K * N; ++i) hb[i] = __float2half(float((i * 11) % 13) * 0.0625f - 0.375f);
  __half *A, *B;
  float* C;
  cudaMalloc(&A, M * K * sizeof(__half));
  cudaMalloc(&B, K * N * sizeof(__half));
  cudaMalloc(&C, M * N * sizeof(float));
  cudaMemcpy(A, ha.data(), M * K * sizeof(__half), cudaMemcpyHostToDevice);
  cudaMemcpy(B, hb.data(), K * N * sizeof(__half), cudaMemcpyHostToDevice);

  for (int rep = 0; rep < 2; ++rep) {
    bias_gelu_half<<<(n + 255) / 256, 256>>>(x, bias, y, rows, cols);
    rmsnorm_bf16<<<(rows + 255) / 256, 256>>>(xb, wb, yb, rows, cols, 1e-6f);
    hgemm_naive<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
  }
  cudaDeviceSynchronize();
  std::vector<__half> hy(n);
  std::vector<__nv_bfloat16> by(n);
  std::vector<float> hc(M * N);
  cudaMemcpy(hy.data(), y, n * sizeof(__half), cudaMemcpyDeviceToHost);
  cudaMemcpy(by.data(), yb, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
  cudaMemcpy(hc.data(), C, M * N * sizeof(float), cudaMemcpyDeviceToHost);
  double s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < n; i += 101) s1 += __half2float(hy[i]);
  for (int i = 0; i < n; i += 103) s2 += __bfloat162float(by[i]);
  for (int i = 0; i < M * N; i += 89) s3 += hc[i];
  std::printf("half: gelu %.4f rmsnorm %.4f hgemm %.4f (%s)\n", s1, s2, s3, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
