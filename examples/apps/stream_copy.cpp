// stream_copy: a STREAM-like copy b[i] = a[i] over arrays far larger than the L2, in 16-byte vectors, one
// element per thread. Built to be memory-bandwidth bound: it moves 2 x MIB MiB per launch and does no
// arithmetic, so device-memory bandwidth is the only limit.
//   stream_copy [--mib=512] [--iters=10]
#include <vector>

#include "common/app_util.hpp"

__global__ void stream_copy(const float4* __restrict__ a, float4* __restrict__ b, long n) {
  long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < n) b[i] = a[i];
}

int main(int argc, char** argv) {
  const long mib = app::option_long(argc, argv, "mib", 512);
  const long iters = app::option_long(argc, argv, "iters", 10);
  const long n = mib * (1L << 20) / static_cast<long>(sizeof(float4));
  if (n == 0 || iters == 0) return app::fail("stream_copy", "--mib and --iters must be positive");
  std::vector<float4> host(n);
  for (long i = 0; i < n; ++i) host[i] = make_float4(float(i % 1021), float(i % 509), float(i % 251), float(i % 127));
  float4 *a = nullptr, *b = nullptr;
  HIP_CHECK(hipMalloc(&a, n * sizeof(float4)));
  HIP_CHECK(hipMalloc(&b, n * sizeof(float4)));
  HIP_CHECK(hipMemcpy(a, host.data(), n * sizeof(float4), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(b, 0, n * sizeof(float4)));

  const int threads = 256;
  const long blocks = (n + threads - 1) / threads;
  double t0 = app::now_s();
  for (long it = 0; it < iters; ++it) hipLaunchKernelGGL(stream_copy, dim3(blocks), dim3(threads), 0, 0, a, b, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  double loop_s = app::now_s() - t0;

  std::vector<float4> out(n);
  HIP_CHECK(hipMemcpy(out.data(), b, n * sizeof(float4), hipMemcpyDeviceToHost));
  for (long i = 0; i < n; i += 4097)
    if (out[i].x != host[i].x || out[i].y != host[i].y || out[i].z != host[i].z || out[i].w != host[i].w)
      return app::fail("stream_copy", "the copy differs from the source");
  app::expect_kernel("stream_copy", iters);
  std::printf("RPL_RESULT app=stream_copy kernels=%ld loop_s=%.6f gbps=%.1f\n", iters, loop_s,
              2.0 * n * sizeof(float4) * iters / loop_s / 1e9);
  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
  return 0;
}
