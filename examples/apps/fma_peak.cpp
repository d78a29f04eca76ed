// fma_peak: fp32 FMA throughput. Every thread runs 8 independent FMA chains (enough instruction-level
// parallelism to cover the FMA latency) at full occupancy and touches memory once, so the FP32 pipe is
// the only limit: built to be compute throughput limited.
//   fma_peak [--iters=4096] [--launches=10]
#include <cmath>
#include <vector>

#include "common/app_util.hpp"

constexpr int kChains = 8;

// a rises towards 1 from below, so each chain stays bounded however long it runs.
__global__ void fma_peak(float* data, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = data[i] + 0.125f * c;
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], 0.9999f, 0.0001f);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += x[c];
  data[i] = sum;
}

static float host_result(float v, int iters, long launches) {
  for (long l = 0; l < launches; ++l) {
    float x[kChains];
    for (int c = 0; c < kChains; ++c) x[c] = v + 0.125f * c;
    for (int k = 0; k < iters; ++k)
      for (int c = 0; c < kChains; ++c) x[c] = std::fmaf(x[c], 0.9999f, 0.0001f);
    float sum = 0;
    for (int c = 0; c < kChains; ++c) sum += x[c];
    v = sum;
  }
  return v;
}

int main(int argc, char** argv) {
  const int iters = static_cast<int>(app::option_long(argc, argv, "iters", 4096));
  const long launches = app::option_long(argc, argv, "launches", 10);
  hipDeviceProp_t prop{};
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const int threads = 256, blocks = prop.multiProcessorCount * 32;  // 4 full waves at 8 blocks per SM
  const int n = threads * blocks;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.001f * float(i % 997);
  float* data = nullptr;
  HIP_CHECK(hipMalloc(&data, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(data, host.data(), n * sizeof(float), hipMemcpyHostToDevice));

  double t0 = app::now_s();
  for (long l = 0; l < launches; ++l) hipLaunchKernelGGL(fma_peak, dim3(blocks), dim3(threads), 0, 0, data, iters);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<float> out(n);
  HIP_CHECK(hipMemcpy(out.data(), data, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i : {0, n / 2 + 7, n - 1}) {
    float want = host_result(host[i], iters, launches);
    if (!(std::fabs(out[i] - want) <= 1e-4f * std::fabs(want) + 1e-5f)) {
      std::fprintf(stderr, "element %d: %.9g, expected %.9g\n", i, out[i], want);
      return app::fail("fma_peak", "FMA chains differ from the host");
    }
  }
  const double flops = 2.0 * kChains * double(iters) * n * launches;
  app::expect_kernel("fma_peak", launches);
  std::printf("RPL_RESULT app=fma_peak kernels=%ld loop_s=%.6f gflops=%.1f\n", launches, loop_s, flops / loop_s / 1e9);
  HIP_CHECK(hipFree(data));
  return 0;
}
