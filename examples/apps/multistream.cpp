// multistream: a three-stream pipeline whose critical path is known by construction.
//   multistream [--iters=3] [--scale=1.0]   (scale multiplies every stage's duration)
//
// Each iteration (ended by hipDeviceSynchronize):
//   stream A: stage_a1 (2000 us)  -> record evA
//   stream B: stage_b1 ( 500 us)  -> wait evA -> stage_b2 (1000 us) -> record evB
//   stream C: stage_c1 (1000 us)  -> wait evB -> stage_c2 ( 500 us)
// Stages spin on the device clock for their duration, one block each, so they overlap freely except
// where an event orders them. Data flows along the events: b2 reads what a1 wrote, c2 what b2 wrote, so
// a missing dependency gives a wrong result (checked).
//
// Expected (per iteration; multistream.json holds the same for the test suite):
//   critical path  stage_a1 -> stage_b2 -> stage_c2   = 2000 + 1000 + 500 = 3500 us (scaled)
//   cross-stream edges  stage_a1 -(evA)-> stage_b2,  stage_b2 -(evB)-> stage_c2
//   off the path   stage_b1 (slack 1500 us: done at 500, b2 starts at 2000),
//                  stage_c1 (slack 2000 us: done at 1000, c2 starts at 3000)
//   kernels        each of the five stages once per iteration
// Events evA and evB are reused every iteration, so record/wait pairing must follow the latest record.
#include <vector>

#include "common/app_util.hpp"

constexpr int kSlots = 5;  // a1, b1, b2, c1, c2

__global__ void stage_a1(long long* slots, int iter, unsigned long long ns) {
  rpl_spin_for_ns(ns);
  slots[iter * kSlots + 0] = 100LL * iter + 1;
}
__global__ void stage_b1(long long* slots, int iter, unsigned long long ns) {
  rpl_spin_for_ns(ns);
  slots[iter * kSlots + 1] = 7;
}
__global__ void stage_b2(long long* slots, int iter, unsigned long long ns) {
  rpl_spin_for_ns(ns);
  slots[iter * kSlots + 2] = slots[iter * kSlots + 0] + 1;  // needs a1 (event evA)
}
__global__ void stage_c1(long long* slots, int iter, unsigned long long ns) {
  rpl_spin_for_ns(ns);
  slots[iter * kSlots + 3] = 9;
}
__global__ void stage_c2(long long* slots, int iter, unsigned long long ns) {
  rpl_spin_for_ns(ns);
  slots[iter * kSlots + 4] = slots[iter * kSlots + 2] + 1;  // needs b2 (event evB)
}

int main(int argc, char** argv) {
  const int iters = static_cast<int>(app::option_long(argc, argv, "iters", 3));
  const double scale = std::atof(app::option(argc, argv, "scale", "1.0").c_str());
  auto ns = [scale](double us) { return static_cast<unsigned long long>(us * 1000.0 * scale); };

  long long* slots = nullptr;
  const size_t bytes = size_t(iters) * kSlots * sizeof(long long);
  HIP_CHECK(hipMalloc(&slots, bytes));
  HIP_CHECK(hipMemset(slots, 0, bytes));
  hipStream_t a, b, c;
  HIP_CHECK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&c, hipStreamNonBlocking));
  hipEvent_t ev_a, ev_b;
  HIP_CHECK(hipEventCreateWithFlags(&ev_a, hipEventDisableTiming));
  HIP_CHECK(hipEventCreateWithFlags(&ev_b, hipEventDisableTiming));

  double t0 = app::now_s();
  for (int it = 0; it < iters; ++it) {
    hipLaunchKernelGGL(stage_a1, dim3(1), dim3(32), 0, a, slots, it, ns(2000));
    HIP_CHECK(hipEventRecord(ev_a, a));
    hipLaunchKernelGGL(stage_b1, dim3(1), dim3(32), 0, b, slots, it, ns(500));
    HIP_CHECK(hipStreamWaitEvent(b, ev_a, 0));
    hipLaunchKernelGGL(stage_b2, dim3(1), dim3(32), 0, b, slots, it, ns(1000));
    HIP_CHECK(hipEventRecord(ev_b, b));
    hipLaunchKernelGGL(stage_c1, dim3(1), dim3(32), 0, c, slots, it, ns(1000));
    HIP_CHECK(hipStreamWaitEvent(c, ev_b, 0));
    hipLaunchKernelGGL(stage_c2, dim3(1), dim3(32), 0, c, slots, it, ns(500));
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipDeviceSynchronize());
  }
  double loop_s = app::now_s() - t0;

  std::vector<long long> host(size_t(iters) * kSlots);
  HIP_CHECK(hipMemcpy(host.data(), slots, bytes, hipMemcpyDeviceToHost));
  for (int it = 0; it < iters; ++it) {
    const long long* s = &host[size_t(it) * kSlots];
    if (s[0] != 100LL * it + 1 || s[1] != 7 || s[2] != 100LL * it + 2 || s[3] != 9 || s[4] != 100LL * it + 3) {
      std::fprintf(stderr, "iteration %d: slots %lld %lld %lld %lld %lld\n", it, s[0], s[1], s[2], s[3], s[4]);
      return app::fail("multistream", "a stage ran before the stage it waits for");
    }
  }
  for (const char* name : {"stage_a1", "stage_b1", "stage_b2", "stage_c1", "stage_c2"}) app::expect_kernel(name, iters);
  std::printf("RPL_RESULT app=multistream iters=%d scale=%.3f loop_s=%.6f expected_path_us_per_iter=%.1f\n", iters,
              scale, loop_s, 3500.0 * scale);
  HIP_CHECK(hipEventDestroy(ev_a));
  HIP_CHECK(hipEventDestroy(ev_b));
  for (hipStream_t s : {a, b, c}) HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(slots));
  return 0;
}
