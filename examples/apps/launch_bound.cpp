// launch_bound: N tiny kernels back to back on one stream, so the host's launch rate is the bottleneck.
// The overhead benchmark times this loop with and without the collector.
//   launch_bound [N=100000] [--all-devices=1] [--crash=segv|abort|exit|term]
// --all-devices=1 launches N kernels on every device (several GPUs); --crash ends the process the given
// way after the launches (and a synchronise), to test that the collector keeps what was recorded.
#include <csignal>
#include <vector>

#include "common/app_util.hpp"

__global__ void tiny_increment(unsigned long long* counter) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *counter += 1;  // one stream: launches run in order
}

int main(int argc, char** argv) {
  const long n = app::positional_long(argc, argv, 100000);
  const bool all_devices = app::option_long(argc, argv, "all-devices", 0) != 0;
  const std::string crash = app::option(argc, argv, "crash", "");
  constexpr long kWarmup = 100;  // module load and first-launch costs stay out of the timed loop

  int device_count = 0;
  HIP_CHECK(hipGetDeviceCount(&device_count));
  const int devices = all_devices ? device_count : 1;
  std::vector<unsigned long long*> counters(devices);
  std::vector<hipStream_t> streams(devices);
  for (int d = 0; d < devices; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipMalloc(&counters[d], sizeof(unsigned long long)));
    HIP_CHECK(hipMemset(counters[d], 0, sizeof(unsigned long long)));
    HIP_CHECK(hipStreamCreateWithFlags(&streams[d], hipStreamNonBlocking));
    for (long i = 0; i < kWarmup; ++i) hipLaunchKernelGGL(tiny_increment, dim3(1), dim3(32), 0, streams[d], counters[d]);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipStreamSynchronize(streams[d]));
  }

  double t0 = app::now_s();
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < devices; ++d) {
      if (devices > 1) HIP_CHECK(hipSetDevice(d));
      hipLaunchKernelGGL(tiny_increment, dim3(1), dim3(32), 0, streams[d], counters[d]);
    }
  HIP_CHECK_LAUNCH();
  for (int d = 0; d < devices; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipStreamSynchronize(streams[d]));
  }
  double loop_s = app::now_s() - t0;

  app::expect_kernel("tiny_increment", (n + kWarmup) * devices);
  std::printf("RPL_RESULT app=launch_bound kernels=%ld devices=%d loop_s=%.6f us_per_launch=%.4f\n", n * devices,
              devices, loop_s, 1e6 * loop_s / double(n * devices));
  std::fflush(stdout);

  if (crash == "segv") *static_cast<volatile int*>(nullptr) = 1;
  if (crash == "abort") std::abort();
  if (crash == "term") std::raise(SIGTERM);
  if (crash == "exit") std::exit(0);  // no cleanup of streams or memory

  for (int d = 0; d < devices; ++d) {
    unsigned long long got = 0;
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipMemcpy(&got, counters[d], sizeof got, hipMemcpyDeviceToHost));
    if (got != static_cast<unsigned long long>(n + kWarmup)) {
      std::fprintf(stderr, "device %d: counter %llu, expected %ld\n", d, got, n + kWarmup);
      return app::fail("launch_bound", "counter does not match the number of launches");
    }
    HIP_CHECK(hipStreamDestroy(streams[d]));
    HIP_CHECK(hipFree(counters[d]));
  }
  return 0;
}
