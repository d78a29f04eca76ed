// Per-kernel statistics and trace timing over traces built in memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "analysis/kernel_stats.hpp"
#include "support/errors.hpp"
#include "testing/in_memory_trace.hpp"

namespace rpl::analysis {
namespace {

using test::InMemoryTrace;

const KernelStats& find(const KernelStatsResult& r, const std::string& name) {
  for (const KernelStats& k : r.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

void expect_invalid(const Trace& trace, const std::string& fragment) {
  try {
    compute_kernel_stats(trace);
    ADD_FAILURE() << "trace accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid);
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// ---- classification and duration statistics ----

TEST(ClassifyCv, Boundaries) {
  EXPECT_EQ(classify_cv(0.0), Stability::Stable);
  EXPECT_EQ(classify_cv(0.05), Stability::Stable);
  EXPECT_EQ(classify_cv(0.0500001), Stability::Moderate);
  EXPECT_EQ(classify_cv(0.10), Stability::Moderate);
  EXPECT_EQ(classify_cv(0.1000001), Stability::Unstable);
  EXPECT_STREQ(to_string(Stability::Stable), "stable");
  EXPECT_STREQ(to_string(Stability::Moderate), "moderate");
  EXPECT_STREQ(to_string(Stability::Unstable), "unstable");
}

TEST(DurationStats, Empty) {
  std::vector<double> v;
  const DurationStats s = compute_duration_stats(v);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.total_ns, 0);
  EXPECT_EQ(s.stability, Stability::Stable);
}

TEST(DurationStats, SingleValue) {
  std::vector<double> v{5};
  const DurationStats s = compute_duration_stats(v);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.total_ns, 5);
  EXPECT_EQ(s.mean_ns, 5);
  EXPECT_EQ(s.median_ns, 5);
  EXPECT_EQ(s.min_ns, 5);
  EXPECT_EQ(s.max_ns, 5);
  EXPECT_EQ(s.stddev_ns, 0);  // n = 1: no sample deviation
  EXPECT_EQ(s.cv, 0);
  EXPECT_EQ(s.stability, Stability::Stable);
}

TEST(DurationStats, OddAndEvenMedians) {
  std::vector<double> odd{3, 1, 2};
  EXPECT_EQ(compute_duration_stats(odd).median_ns, 2);
  std::vector<double> even{4, 1, 3, 2};  // middle values 2 and 3
  EXPECT_EQ(compute_duration_stats(even).median_ns, 2.5);
  std::vector<double> two{10, 30};
  EXPECT_EQ(compute_duration_stats(two).median_ns, 20);
  std::vector<double> dup{7, 1, 7, 7};  // sorted 1 7 7 7: middles 7 and 7
  EXPECT_EQ(compute_duration_stats(dup).median_ns, 7);
}

TEST(DurationStats, SampleStddevAndCv) {
  // mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32/7.
  std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9};
  const DurationStats s = compute_duration_stats(v);
  EXPECT_EQ(s.total_ns, 40);
  EXPECT_EQ(s.mean_ns, 5);
  EXPECT_EQ(s.median_ns, 4.5);
  EXPECT_EQ(s.min_ns, 2);
  EXPECT_EQ(s.max_ns, 9);
  EXPECT_NEAR(s.stddev_ns, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(32.0 / 7.0) / 5.0, 1e-12);
  EXPECT_EQ(s.stability, Stability::Unstable);
}

TEST(DurationStats, LargeCloseValuesStayAccurate) {
  // 1e12 +- 1: mean 1e12, deviations -1, 0, +1 -> sample variance 2/2 = 1.
  std::vector<double> v{1e12 - 1, 1e12, 1e12 + 1};
  const DurationStats s = compute_duration_stats(v);
  EXPECT_EQ(s.mean_ns, 1e12);
  EXPECT_NEAR(s.stddev_ns, 1.0, 1e-9);
  EXPECT_EQ(s.stability, Stability::Stable);
}

TEST(DurationStats, ZeroMeanHasZeroCv) {
  std::vector<double> v{0, 0, 0};
  const DurationStats s = compute_duration_stats(v);
  EXPECT_EQ(s.cv, 0);
  EXPECT_EQ(s.stability, Stability::Stable);
}

// ---- kernel statistics ----

TEST(KernelStats, GroupsSortsSharesAndDominant) {
  InMemoryTrace t;
  t.add_process(100);
  const Index a = t.add_symbol("kernel_a(float*)", "_Z8kernel_aPf");
  const Index b = t.add_symbol("kernel_b");
  const Index blit = t.add_symbol("__amd_rocclr_copyBuffer");
  t.add_symbol("never_launched");
  // A: 10, 20, 30 (total 60, mean 20, sample stddev 10, cv 0.5). B: 50, 50 (total 100, cv 0).
  // Runtime blit: 200. Sum 360.
  t.add_dispatch(a, 0, 10);
  t.add_dispatch(b, 10, 60);
  t.add_dispatch(a, 60, 80);
  t.add_dispatch(blit, 80, 280);
  t.add_dispatch(b, 280, 330);
  t.add_dispatch(a, 330, 360);
  const KernelStatsResult r = compute_kernel_stats(t.trace);

  ASSERT_EQ(r.kernels.size(), 3u);  // never_launched is left out
  EXPECT_EQ(r.kernels[0].name, "__amd_rocclr_copyBuffer");
  EXPECT_EQ(r.kernels[1].name, "kernel_b");
  EXPECT_EQ(r.kernels[2].name, "kernel_a(float*)");
  EXPECT_TRUE(r.kernels[0].runtime_kernel);
  EXPECT_FALSE(r.kernels[1].runtime_kernel);
  EXPECT_EQ(r.dominant, 1);  // the largest kernel is a runtime blit, so B

  const KernelStats& ka = r.kernels[2];
  EXPECT_EQ(ka.mangled_name, "_Z8kernel_aPf");
  EXPECT_EQ(ka.durations.count, 3u);
  EXPECT_EQ(ka.durations.total_ns, 60);
  EXPECT_EQ(ka.durations.mean_ns, 20);
  EXPECT_EQ(ka.durations.median_ns, 20);
  EXPECT_EQ(ka.durations.min_ns, 10);
  EXPECT_EQ(ka.durations.max_ns, 30);
  EXPECT_DOUBLE_EQ(ka.durations.stddev_ns, 10);
  EXPECT_DOUBLE_EQ(ka.durations.cv, 0.5);
  EXPECT_EQ(ka.durations.stability, Stability::Unstable);
  EXPECT_EQ(ka.symbols, std::vector<Index>{a});
  EXPECT_DOUBLE_EQ(ka.share_of_gpu_time, 60.0 / 360.0);
  EXPECT_DOUBLE_EQ(r.kernels[1].share_of_gpu_time, 100.0 / 360.0);
  EXPECT_DOUBLE_EQ(r.kernels[0].share_of_gpu_time, 200.0 / 360.0);
  EXPECT_EQ(r.kernels[1].durations.stability, Stability::Stable);

  // Back-to-back dispatches from 0 to 360: runtime = busy = span = 360.
  EXPECT_EQ(r.timing.dispatch_count, 6u);
  EXPECT_EQ(r.timing.runtime_ns, 360);
  EXPECT_EQ(r.timing.kernel_busy_ns, 360);
  EXPECT_EQ(r.timing.wall_span_ns, 360);
}

TEST(KernelStats, TiesOrderedByName) {
  InMemoryTrace t;
  const Index z = t.add_symbol("zeta");
  const Index a = t.add_symbol("alpha");
  t.add_dispatch(z, 0, 10);
  t.add_dispatch(a, 10, 20);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "alpha");
  EXPECT_EQ(r.kernels[1].name, "zeta");
  EXPECT_EQ(r.dominant, 0);
}

TEST(KernelStats, OnlyRuntimeKernelsHaveNoDominant) {
  InMemoryTrace t;
  const Index fill = t.add_symbol("__amd_rocclr_fillBufferAligned");
  const Index copy = t.add_symbol("__amd_rocclr_copyBuffer");
  t.add_dispatch(fill, 0, 5);
  t.add_dispatch(copy, 5, 15);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.dominant, -1);
}

TEST(KernelStats, SmallUserKernelStillDominatesOverRuntime) {
  InMemoryTrace t;
  const Index copy = t.add_symbol("__amd_rocclr_copyBuffer");
  const Index user = t.add_symbol("tiny");
  t.add_dispatch(copy, 0, 1000);
  t.add_dispatch(user, 1000, 1001);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.dominant, 1);
  EXPECT_EQ(r.kernels[r.dominant].name, "tiny");
}

TEST(KernelStats, EmptyTrace) {
  InMemoryTrace t;
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_EQ(r.dominant, -1);
  EXPECT_EQ(r.timing.dispatch_count, 0u);
  EXPECT_EQ(r.timing.runtime_ns, 0);
  EXPECT_EQ(r.timing.gpu_busy_ns, 0);
  EXPECT_EQ(r.timing.wall_start_ns, 0);
  EXPECT_EQ(r.timing.wall_end_ns, 0);
  EXPECT_EQ(r.timing.wall_span_ns, 0);
}

TEST(KernelStats, OneDispatch) {
  InMemoryTrace t;
  t.add_dispatch(t.add_symbol("only"), 1000, 1250);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.kernels.size(), 1u);
  const DurationStats& s = r.kernels[0].durations;
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.mean_ns, 250);
  EXPECT_EQ(s.median_ns, 250);
  EXPECT_EQ(s.stddev_ns, 0);
  EXPECT_EQ(s.stability, Stability::Stable);
  EXPECT_EQ(r.kernels[0].share_of_gpu_time, 1.0);
  EXPECT_EQ(r.timing.wall_start_ns, 1000);
  EXPECT_EQ(r.timing.wall_end_ns, 1250);
  EXPECT_EQ(r.timing.wall_span_ns, 250);
}

TEST(KernelStats, EvenCountMedianAcrossDispatches) {
  InMemoryTrace t;
  const Index k = t.add_symbol("k");
  // Durations 40, 10, 30, 20 -> sorted 10 20 30 40 -> median (20 + 30) / 2 = 25.
  t.add_dispatch(k, 0, 40);
  t.add_dispatch(k, 100, 110);
  t.add_dispatch(k, 200, 230);
  t.add_dispatch(k, 300, 320);
  EXPECT_EQ(compute_kernel_stats(t.trace).kernels[0].durations.median_ns, 25);
}

TEST(KernelStats, ZeroLengthDispatches) {
  InMemoryTrace t;
  const Index k = t.add_symbol("k");
  t.add_dispatch(k, 100, 100);
  t.add_dispatch(k, 200, 200);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].durations.count, 2u);
  EXPECT_EQ(r.kernels[0].durations.total_ns, 0);
  EXPECT_EQ(r.kernels[0].durations.cv, 0);
  EXPECT_EQ(r.kernels[0].share_of_gpu_time, 0);  // no time at all: no share, not NaN
  EXPECT_EQ(r.dominant, 0);
  EXPECT_EQ(r.timing.runtime_ns, 0);
  EXPECT_EQ(r.timing.kernel_busy_ns, 0);
  EXPECT_EQ(r.timing.wall_start_ns, 100);
  EXPECT_EQ(r.timing.wall_end_ns, 200);
  EXPECT_EQ(r.timing.wall_span_ns, 100);
}

TEST(KernelStats, MultipleProcessesMergeByDisplayName) {
  InMemoryTrace t;
  const Index p1 = t.add_process(1);
  const Index p2 = t.add_process(2);
  const Index k1 = t.add_symbol("gemm", "_Z4gemmv", p1);
  const Index other = t.add_symbol("other", "", p1);
  const Index k2 = t.add_symbol("gemm", "_Z4gemmv_p2", p2);
  t.add_dispatch(k1, 0, 100);
  t.add_dispatch(other, 100, 110);
  t.add_dispatch(k2, 50, 250);  // overlaps process 1's dispatch
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.kernels.size(), 2u);
  const KernelStats& gemm = find(r, "gemm");
  EXPECT_EQ(gemm.durations.count, 2u);
  EXPECT_EQ(gemm.durations.total_ns, 300);  // 100 + 200
  EXPECT_EQ(gemm.symbols, (std::vector<Index>{k1, k2}));
  EXPECT_EQ(gemm.mangled_name, "_Z4gemmv");  // first symbol's
  EXPECT_EQ(r.timing.process_count, 2u);
  // runtime 100 + 10 + 200 = 310; union [0, 250] = 250.
  EXPECT_EQ(r.timing.runtime_ns, 310);
  EXPECT_EQ(r.timing.kernel_busy_ns, 250);
}

TEST(KernelStats, SymbolWithoutDisplayNameUsesMangled) {
  InMemoryTrace t;
  KernelSymbol s;
  s.mangled_name = t.trace.strings.intern("_Z3foov");
  s.display_name = 0;
  t.trace.symbols.push_back(s);
  t.add_dispatch(0, 0, 10);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].name, "_Z3foov");
}

// ---- timing: unions and copies ----

TEST(TraceTiming, UnionOfOverlappingIntervalsAndCopies) {
  InMemoryTrace t;
  const Index k = t.add_symbol("k");
  // Dispatches [0,10] [5,15] [20,30] [25,26]: runtime 10+10+10+1 = 31; union [0,15]+[20,30] = 25.
  t.add_dispatch(k, 0, 10);
  t.add_dispatch(k, 5, 15);
  t.add_dispatch(k, 20, 30);
  t.add_dispatch(k, 25, 26);
  // Copies [12,22] and [40,50]: copy time 20; with dispatches [0,30] + [40,50] = 40.
  t.add_copy(12, 22);
  t.add_copy(40, 50);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  EXPECT_EQ(r.timing.runtime_ns, 31);
  EXPECT_EQ(r.timing.kernel_busy_ns, 25);
  EXPECT_EQ(r.timing.copy_time_ns, 20);
  EXPECT_EQ(r.timing.gpu_busy_ns, 40);
  EXPECT_EQ(r.timing.copy_count, 2u);
  EXPECT_EQ(r.timing.wall_start_ns, 0);
  EXPECT_EQ(r.timing.wall_end_ns, 50);
  EXPECT_EQ(r.timing.wall_span_ns, 50);
}

TEST(TraceTiming, UnsortedInputGivesTheSameUnion) {
  InMemoryTrace t;
  const Index k = t.add_symbol("k");
  t.add_dispatch(k, 20, 30);
  t.add_dispatch(k, 0, 10);
  t.add_dispatch(k, 25, 26);
  t.add_dispatch(k, 5, 15);
  t.add_copy(40, 50);
  t.add_copy(12, 22);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  EXPECT_EQ(r.timing.kernel_busy_ns, 25);
  EXPECT_EQ(r.timing.gpu_busy_ns, 40);
}

TEST(TraceTiming, TouchingAndNestedIntervals) {
  InMemoryTrace t;
  const Index k = t.add_symbol("k");
  // [0,10] [10,20] touch -> 20; [30,100] contains [40,50] -> 70. Total 90.
  t.add_dispatch(k, 0, 10);
  t.add_dispatch(k, 10, 20);
  t.add_dispatch(k, 30, 100);
  t.add_dispatch(k, 40, 50);
  EXPECT_EQ(compute_kernel_stats(t.trace).timing.kernel_busy_ns, 90);
}

TEST(TraceTiming, CopiesOnly) {
  InMemoryTrace t;
  t.add_copy(100, 150);
  t.add_copy(120, 200);
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  EXPECT_TRUE(r.kernels.empty());
  EXPECT_EQ(r.timing.kernel_busy_ns, 0);
  EXPECT_EQ(r.timing.gpu_busy_ns, 100);  // [100, 200]
  EXPECT_EQ(r.timing.copy_time_ns, 130);
  EXPECT_EQ(r.timing.wall_start_ns, 100);
  EXPECT_EQ(r.timing.wall_span_ns, 100);
}

TEST(TraceTiming, RandomIntervalsMatchBruteForce) {
  // Unit-step brute force over [0, 2000): count covered nanoseconds.
  std::mt19937 rng(42);
  InMemoryTrace t;
  const Index k = t.add_symbol("k");
  std::vector<bool> kernel_cover(2000, false), gpu_cover(2000, false);
  for (int i = 0; i < 300; ++i) {
    const TimeNs s = rng() % 1900, len = rng() % 60;
    const bool copy = rng() % 3 == 0;
    if (copy)
      t.add_copy(s, s + len);
    else
      t.add_dispatch(k, s, s + len);
    for (TimeNs x = s; x < s + len; ++x) {
      gpu_cover[x] = true;
      if (!copy) kernel_cover[x] = true;
    }
  }
  const KernelStatsResult r = compute_kernel_stats(t.trace);
  EXPECT_EQ(r.timing.kernel_busy_ns, std::count(kernel_cover.begin(), kernel_cover.end(), true));
  EXPECT_EQ(r.timing.gpu_busy_ns, std::count(gpu_cover.begin(), gpu_cover.end(), true));
}

// Several processes' dispatches one process after the other (as several databases are read), each near start
// order, the whole not: the unions are the brute force's, whether the processes follow one another or interleave.
TEST(TraceTiming, SeveralProcessesInTurnMatchBruteForce) {
  for (const bool interleaved : {false, true}) {
    std::mt19937 rng(7);
    InMemoryTrace t;
    std::vector<Index> kernel;
    for (int p = 0; p < 4; ++p) kernel.push_back(t.add_symbol("k" + std::to_string(p), "", t.add_process(100 + p)));
    std::vector<bool> kernel_cover(3000, false), gpu_cover(3000, false);
    std::vector<std::pair<int, TimeNs>> order;  // (process, start)
    for (int p = 0; p < 4; ++p)
      for (TimeNs s = rng() % 50; s < 2900; s += 1 + rng() % 40) order.emplace_back(p, s);
    if (interleaved)
      std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second / 100 < b.second / 100; });
    for (const auto& [p, s] : order) {
      const TimeNs len = rng() % 30;
      t.add_dispatch(kernel[static_cast<std::size_t>(p)], s, s + len);
      for (TimeNs x = s; x < s + len && x < 3000; ++x) kernel_cover[x] = gpu_cover[x] = true;
    }
    for (TimeNs s = 0; s < 2900; s += 500) {
      t.add_copy(s, s + 20);
      for (TimeNs x = s; x < s + 20; ++x) gpu_cover[x] = true;
    }
    const KernelStatsResult r = compute_kernel_stats(t.trace);
    EXPECT_EQ(r.timing.kernel_busy_ns, std::count(kernel_cover.begin(), kernel_cover.end(), true)) << interleaved;
    EXPECT_EQ(r.timing.gpu_busy_ns, std::count(gpu_cover.begin(), gpu_cover.end(), true)) << interleaved;
  }
}

// ---- bad input ----

TEST(KernelStats, NegativeDurationsRejected) {
  InMemoryTrace t;
  t.add_dispatch(t.add_symbol("k"), 100, 90)->dispatch_id = 77;
  expect_invalid(t.trace, "dispatch 77");
  InMemoryTrace c;
  c.add_copy(50, 40).copy_id = 5;
  expect_invalid(c.trace, "memory copy 5");
}

TEST(KernelStats, UnknownSymbolRejected) {
  InMemoryTrace t;
  t.add_symbol("k");
  t.add_dispatch(7, 0, 10)->dispatch_id = 3;
  expect_invalid(t.trace, "dispatch 3 refers to kernel symbol index 7");
  InMemoryTrace u;
  u.add_dispatch(kNoIndex, 0, 10);
  expect_invalid(u.trace, "index -1");
}

}  // namespace
}  // namespace rpl::analysis
