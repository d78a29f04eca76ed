// divergent: lane L of every warp runs (L + 1) x WORK steps of a dependent chain, so a warp runs as long as
// its slowest lane while on average about half of its lanes sit idle (thread utilisation ~0.52). The chain
// uses the special-function unit (rsqrt), whose throughput keeps issue slots far from busy even at full
// occupancy. Built to be divergence limited.
//   divergent [--work=64] [--launches=10]
#include <cmath>
#include <vector>

#include "common/app_util.hpp"

// x -> 1/sqrt(x/2 + 1) is contracting (|f'| < 0.5), so the device's approximate rsqrt stays within
// rounding of the host's exact one however long the chain.
__global__ void divergent_chain(float* data, int work) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int steps = ((threadIdx.x & 31) + 1) * work;
  float x = data[i];
  for (int k = 0; k < steps; ++k) x = rsqrtf(fmaf(x, 0.5f, 1.0f));
  data[i] = x;
}

int main(int argc, char** argv) {
  const int work = static_cast<int>(app::option_long(argc, argv, "work", 64));
  const long launches = app::option_long(argc, argv, "launches", 10);
  hipDeviceProp_t prop{};
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const int threads = 256, blocks = prop.multiProcessorCount * 32;  // 4 full waves
  const int n = threads * blocks;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.25f + 0.001f * float(i % 613);
  float* data = nullptr;
  HIP_CHECK(hipMalloc(&data, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(data, host.data(), n * sizeof(float), hipMemcpyHostToDevice));

  double t0 = app::now_s();
  for (long l = 0; l < launches; ++l) hipLaunchKernelGGL(divergent_chain, dim3(blocks), dim3(threads), 0, 0, data, work);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<float> out(n);
  HIP_CHECK(hipMemcpy(out.data(), data, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i : {0, 31, n / 2 + 5, n - 1}) {
    float x = host[i];
    const long steps = long((i % threads) % 32 + 1) * work * launches;
    for (long k = 0; k < steps; ++k) x = 1.0f / std::sqrt(std::fmaf(x, 0.5f, 1.0f));
    if (!(std::fabs(out[i] - x) <= 1e-5f * std::fabs(x))) {
      std::fprintf(stderr, "element %d: %.9g, expected %.9g\n", i, out[i], x);
      return app::fail("divergent", "the chain differs from the host");
    }
  }
  app::expect_kernel("divergent_chain", launches);
  std::printf("RPL_RESULT app=divergent kernels=%ld loop_s=%.6f\n", launches, loop_s);
  HIP_CHECK(hipFree(data));
  return 0;
}
