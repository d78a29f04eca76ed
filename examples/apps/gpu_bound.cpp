// gpu_bound: a few hundred long, compute-bound kernels, so the GPU is the bottleneck and launch costs
// are hidden. The overhead benchmark times this loop with and without the collector.
//   gpu_bound [--launches=500] [--inner=65536]   (about 1 ms a launch on an H100)
#include <cmath>
#include <vector>

#include "common/app_util.hpp"

// Each thread runs a chain of dependent FMAs on its own value; the chain is recomputed on the host.
// a rises towards 1 from below, so x stays bounded (about 2) however long the chain.
__global__ void fma_burn(float* data, int inner) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = data[i], a = 0.9999f, b = 0.0001f;
  for (int k = 0; k < inner; ++k) {
    x = fmaf(x, a, b);
    a = fmaf(a, 0.99999f, 0.00001f);
  }
  data[i] = x;
}

static float host_chain(float x, int inner, long launches) {
  for (long l = 0; l < launches; ++l) {
    float a = 0.9999f, b = 0.0001f;
    for (int k = 0; k < inner; ++k) {
      x = std::fmaf(x, a, b);
      a = std::fmaf(a, 0.99999f, 0.00001f);
    }
  }
  return x;
}

int main(int argc, char** argv) {
  const long launches = app::option_long(argc, argv, "launches", 500);
  const int inner = static_cast<int>(app::option_long(argc, argv, "inner", 65536));
  hipDeviceProp_t prop{};
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  const int threads = 256, blocks = prop.multiProcessorCount * 8;
  const int n = threads * blocks;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = 0.5f + 0.001f * float(i % 997);
  float* data = nullptr;
  HIP_CHECK(hipMalloc(&data, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(data, host.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));

  double t0 = app::now_s();
  for (long l = 0; l < launches; ++l) hipLaunchKernelGGL(fma_burn, dim3(blocks), dim3(threads), 0, stream, data, inner);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamSynchronize(stream));
  double loop_s = app::now_s() - t0;

  std::vector<float> out(n);
  HIP_CHECK(hipMemcpy(out.data(), data, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i : {0, n - 1}) {  // two elements: the host chain is long
    float want = host_chain(host[i], inner, launches);
    if (!std::isfinite(want) || !(std::fabs(out[i] - want) <= 1e-4f * std::fabs(want) + 1e-6f)) {
      std::fprintf(stderr, "element %d: %.9g, expected %.9g\n", i, out[i], want);
      return app::fail("gpu_bound", "FMA chain result differs from the host");
    }
  }
  app::expect_kernel("fma_burn", launches);
  std::printf("RPL_RESULT app=gpu_bound kernels=%ld loop_s=%.6f ms_per_launch=%.4f\n", launches, loop_s,
              1e3 * loop_s / double(launches));
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(data));
  return 0;
}
