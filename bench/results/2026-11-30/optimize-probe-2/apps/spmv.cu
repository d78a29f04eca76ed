// Probe app (round 2): CSR sparse matrix-vector product, one thread per row (scalar CSR), launched twice.
// Kernels lie between "// @kernel NAME {" and "// @kernel NAME }".
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

// @kernel spmv_csr {
__global__ void spmv_csr(int rows, const int* __restrict__ rowptr, const int* __restrict__ colidx,
                         const float* __restrict__ vals, const float* __restrict__ x, float* __restrict__ y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int k = rowptr[row]; k < rowptr[row + 1]; ++k) acc += vals[k] * x[colidx[k]];
    y[row] = acc;
  }
}
// @kernel spmv_csr }

int main() {
  const int rows = 1 << 18, cols = 1 << 18;
  std::vector<int> hp(rows + 1), hc;
  std::vector<float> hv, hx(cols);
  hp[0] = 0;
  for (int r = 0; r < rows; ++r) {
    int nnz = 8 + (r * 7) % 57;
    for (int k = 0; k < nnz; ++k) {
      hc.push_back((int)(((unsigned)r * 40503u + (unsigned)k * 9973u) % (unsigned)cols));
      hv.push_back(float((r + k) % 13) * 0.25f - 1.5f);
    }
    hp[r + 1] = hp[r] + nnz;
  }
  for (int c = 0; c < cols; ++c) hx[c] = float(c % 101) * 0.01f;
  int *rowptr, *colidx;
  float *vals, *x, *y;
  cudaMalloc(&rowptr, hp.size() * 4);
  cudaMalloc(&colidx, hc.size() * 4);
  cudaMalloc(&vals, hv.size() * 4);
  cudaMalloc(&x, hx.size() * 4);
  cudaMalloc(&y, rows * 4);
  cudaMemcpy(rowptr, hp.data(), hp.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(colidx, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(vals, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice);
  for (int rep = 0; rep < 2; ++rep) spmv_csr<<<rows / 256, 256>>>(rows, rowptr, colidx, vals, x, y);
  std::vector<float> hy(rows);
  cudaMemcpy(hy.data(), y, rows * 4, cudaMemcpyDeviceToHost);
  double s = 0;
  for (float v : hy) s += v;
  std::printf("spmv: sum %.6f (%s)\n", s, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
