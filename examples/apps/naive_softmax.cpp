// naive_softmax: row softmax with one thread per row and three passes over the row (max, sum, write), so
// a warp's loads are strided by a whole row: deliberately slow, memory-inefficient code to profile.
//   naive_softmax [--rows=4096] [--cols=4096] [--iters=20]
#include <cmath>
#include <random>
#include <vector>

#include "common/app_util.hpp"

__global__ void naive_softmax(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* x = in + size_t(r) * cols;
  float* y = out + size_t(r) * cols;
  float m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
  float sum = 0.f;
  for (int c = 0; c < cols; ++c) sum += expf(x[c] - m);
  for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / sum;
}

int main(int argc, char** argv) {
  const int rows = static_cast<int>(app::option_long(argc, argv, "rows", 4096));
  const int cols = static_cast<int>(app::option_long(argc, argv, "cols", 4096));
  const long iters = app::option_long(argc, argv, "iters", 20);
  const size_t n = size_t(rows) * cols;
  std::vector<float> in(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-4.f, 4.f);
  for (float& x : in) x = dist(rng);
  float *din, *dout;
  HIP_CHECK(hipMalloc(&din, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(dout, 0xff, n * sizeof(float)));  // poison: NaNs where nothing is written

  double t0 = app::now_s();
  for (long it = 0; it < iters; ++it)
    hipLaunchKernelGGL(naive_softmax, dim3((rows + 127) / 128), dim3(128), 0, 0, din, dout, rows, cols);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<float> out(n);
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
  double max_rel = 0;
  for (int r : {0, 1, rows / 2, rows - 1}) {
    double m = -1e300, sum = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, double(in[size_t(r) * cols + c]));
    for (int c = 0; c < cols; ++c) sum += std::exp(double(in[size_t(r) * cols + c]) - m);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(double(in[size_t(r) * cols + c]) - m) / sum;
      double got = out[size_t(r) * cols + c];
      max_rel = std::max(max_rel, std::fabs(got - want) / want);
      if (std::isnan(got)) max_rel = INFINITY;
    }
  }
  if (!(max_rel < 1e-3)) {
    std::fprintf(stderr, "max relative error %.3g\n", max_rel);
    return app::fail("naive_softmax", "output differs from the host reference");
  }
  app::expect_kernel("naive_softmax", iters);
  std::printf("RPL_RESULT app=naive_softmax rows=%d cols=%d iters=%ld loop_s=%.6f max_rel_err=%.3g\n", rows, cols,
              iters, loop_s, max_rel);
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  return 0;
}
