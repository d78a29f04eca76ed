// Issue 13: the analysis window (--range / first to last kernel), idle attribution on the critical path, the
// launch_bound finding, and launch shapes with duration classes, over traces built in memory.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/analysis_window.hpp"
#include "analysis/critical_path.hpp"
#include "analysis/idle_attribution.hpp"
#include "analysis/kernel_shapes.hpp"
#include "app/analyze.hpp"
#include "report/idle_report.hpp"
#include "report/vendor_terms.hpp"
#include "testing/in_memory_trace.hpp"

namespace rpl {
namespace {

using test::InMemoryTrace;

ApiCall& add_call(InMemoryTrace& t, const char* name, const char* category, TimeNs start, TimeNs end,
                  int64_t correlation = 0) {
  ApiCall a;
  a.start = start;
  a.end = end;
  a.process = 0;
  a.thread = 1;
  a.correlation_id = correlation;
  a.name = t.trace.strings.intern(name);
  a.category = t.trace.strings.intern(category);
  t.trace.api_calls.push_back(a);
  return t.trace.api_calls.back();
}

// A launch call and its kernel on stream 0.
void launch(InMemoryTrace& t, Index symbol, int64_t corr, TimeNs call_start, TimeNs call_end, TimeNs start,
            TimeNs end) {
  add_call(t, "cudaLaunchKernel", "CUDA_RUNTIME_API", call_start, call_end, corr);
  auto d = t.add_dispatch(symbol, start, end);
  d->correlation_id = corr;
  d->stream = 0;
}

InMemoryTrace base() {
  InMemoryTrace t;
  t.add_process(1);
  t.trace.streams.push_back({0, 1, ""});
  return t;
}

// ---- window ----

TEST(AnalysisWindow, DefaultIsFirstToLastKernelAndDropsStartupCopies) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("k");
  t.add_copy(0, 100);                          // start-up: before the first kernel
  launch(t, k, 1, 900, 950, 1'000, 1'100);
  t.add_copy(1'150, 1'200);                    // between kernels: kept
  launch(t, k, 2, 1'200, 1'250, 1'300, 1'400);
  t.add_copy(5'000, 5'100);                    // tear-down
  const auto w = analysis::restrict_to_window(t.trace, std::nullopt);
  EXPECT_EQ(w.source, analysis::WindowSource::FirstToLastKernel);
  EXPECT_EQ(w.start, 1'000);
  EXPECT_EQ(w.end, 1'400);
  EXPECT_EQ(w.dropped_copies, 2u);
  EXPECT_EQ(t.trace.copies.size(), 1u);
  EXPECT_EQ(t.trace.dispatches.size(), 2u);
  EXPECT_EQ(t.trace.api_calls.size(), 2u);  // launch calls stay, even the one before the window
}

TEST(AnalysisWindow, RangeKeepsTheWorkLaunchedInsideAndReindexesCounters) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("k");
  launch(t, k, 1, 100, 110, 200, 300);      // warm-up: launched outside the ranges
  add_call(t, "train_step", "MARKER_CORE_API", 1'000, 1'500);
  launch(t, k, 2, 1'100, 1'110, 1'600, 1'700);  // launched inside, runs after the range ends
  add_call(t, "train_step", "MARKER_CORE_API", 2'000, 2'500);
  launch(t, k, 3, 2'100, 2'110, 2'600, 2'800);
  launch(t, k, 4, 3'000, 3'010, 3'100, 3'200);  // after
  t.trace.counters.push_back({0, t.trace.strings.intern("c"), 1});
  t.trace.counters.push_back({2, t.trace.strings.intern("c"), 3});
  const auto w = analysis::restrict_to_window(t.trace, std::string("train_step"));
  EXPECT_EQ(w.source, analysis::WindowSource::Range);
  EXPECT_EQ(w.range_instances, 2u);
  EXPECT_EQ(w.start, 1'000);
  EXPECT_EQ(w.end, 2'800);
  EXPECT_EQ(w.dropped_dispatches, 2u);
  ASSERT_EQ(t.trace.dispatches.size(), 2u);
  EXPECT_EQ(t.trace.dispatches[0].correlation_id, 2);
  ASSERT_EQ(t.trace.counters.size(), 1u);  // the warm-up dispatch's counter went with it
  EXPECT_EQ(t.trace.counters[0].dispatch, 1u);
  EXPECT_EQ(t.trace.counters[0].value, 3);
  EXPECT_NE(w.description.find("'train_step' (2 instances)"), std::string::npos) << w.description;
}

TEST(AnalysisWindow, MissingRangeFallsBackAndSaysSo) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("k");
  launch(t, k, 1, 100, 110, 200, 300);
  add_call(t, "train_step", "CUDA_RUNTIME_API", 0, 1'000);  // same name, not a marker
  const auto w = analysis::restrict_to_window(t.trace, std::string("train_step"));
  EXPECT_EQ(w.source, analysis::WindowSource::FirstToLastKernel);
  EXPECT_EQ(w.range_instances, 0u);
  EXPECT_NE(w.description.find("no NVTX/ROCTx range named 'train_step'"), std::string::npos) << w.description;
  EXPECT_EQ(t.trace.dispatches.size(), 1u);
}

// ---- idle attribution ----

// Three gaps on one stream, one of each kind:
//   k1 [1000,1100]; k2 launched at 1050 (host ahead) starts 1130: 30 ns launch latency;
//   a host stream synchronise [1140,1210] returns after k2 ends (1200), the host launches k3 at 1260,
//   k3 starts 1280: gap 80 = 60 sync (1200..1260) + 20 launch;
//   k4 launched at 1400 with no sync, starts 1420 after k3 ends at 1300: gap 120 = 100 host work + 20 launch.
//   k5 has no launch call recorded: its gap 50 is unattributed.
TEST(IdleAttribution, SplitsEachGapByWhatTheHostWasDoing) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("k");
  launch(t, k, 1, 900, 950, 1'000, 1'100);
  launch(t, k, 2, 1'050, 1'060, 1'130, 1'200);
  SyncOp sync;
  sync.kind = SyncKind::StreamSynchronize;
  sync.process = 0;
  sync.stream = 0;
  sync.correlation_id = 100;
  sync.start = 1'140;
  sync.end = 1'210;
  t.trace.sync_ops.push_back(sync);
  launch(t, k, 3, 1'260, 1'270, 1'280, 1'300);
  launch(t, k, 4, 1'400, 1'410, 1'420, 1'500);
  {
    auto orphan = t.add_dispatch(k, 1'550, 1'600);
    orphan->stream = 0;
    orphan->correlation_id = 999;
  }
  const auto cp = analysis::analyze_critical_path(t.trace);
  ASSERT_EQ(cp.path.size(), 5u);
  const auto idle = analysis::attribute_idle(t.trace, cp);
  EXPECT_EQ(idle.gaps, 4u);
  EXPECT_DOUBLE_EQ(idle.idle_ns, 30 + 80 + 120 + 50);
  EXPECT_DOUBLE_EQ(idle.launch_ns, 30 + 20 + 20);
  EXPECT_DOUBLE_EQ(idle.sync_ns, 60);
  EXPECT_DOUBLE_EQ(idle.host_ns, 100);
  EXPECT_DOUBLE_EQ(idle.unattributed_ns, 50);
  EXPECT_DOUBLE_EQ(idle.launch_ns + idle.sync_ns + idle.host_ns + idle.unattributed_ns, idle.idle_ns);
  EXPECT_DOUBLE_EQ(idle.idle_ns, cp.critical_path_idle_ns);
}

// A launch inside an outer call of the same correlation id: the outermost (earliest) call counts, whatever the
// calls' order in the trace; the medians are those of the gaps and durations (issue 32: computed without copies).
TEST(IdleAttribution, TheOutermostLaunchCallCountsAndTheMediansAreExact) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("k");
  launch(t, k, 1, 900, 950, 1'000, 1'100);
  launch(t, k, 2, 1'120, 1'125, 1'130, 1'200);            // the inner call, listed first
  add_call(t, "hipLaunchKernel", "HIP_RUNTIME_API", 1'105, 1'128, 2);  // its outer call starts 5 ns after the gap does
  const auto cp = analysis::analyze_critical_path(t.trace);
  ASSERT_EQ(cp.path.size(), 2u);
  const auto idle = analysis::attribute_idle(t.trace, cp);
  EXPECT_EQ(idle.gaps, 1u);
  EXPECT_DOUBLE_EQ(idle.host_ns, 5);
  EXPECT_DOUBLE_EQ(idle.launch_ns, 25);
  EXPECT_DOUBLE_EQ(idle.median_gap_ns, 30);
  EXPECT_DOUBLE_EQ(idle.median_node_ns, 85);  // durations 100 and 70
}

// The launch calls are found by whichever side is smaller, the gaps' keys or the calls (issue 32): the same
// attribution either way. Without extra kernels the path has 1 gap key against 3 calls (the gaps are indexed);
// with 5 kernels launched by no recorded call, 6 gap keys against 3 calls (the calls are indexed).
TEST(IdleAttribution, TheSameLaunchCallsWhicheverSideIsIndexed) {
  for (int extra : {0, 5}) {
    InMemoryTrace t = base();
    Index k = t.add_symbol("k");
    launch(t, k, 1, 900, 950, 1'000, 1'100);
    add_call(t, "hipLaunchKernel", "HIP_RUNTIME_API", 1'125, 1'129, 2);  // an inner call, later in the trace
    launch(t, k, 2, 1'105, 1'128, 1'130, 1'200);                          // the outer call: host 5, launch 25
    for (int i = 0; i < extra; ++i) {
      auto d = t.add_dispatch(k, 1'300 + 200 * i, 1'400 + 200 * i);  // a 100 ns gap before each, no call
      d->correlation_id = 10 + i;
      d->stream = 0;
    }
    const auto cp = analysis::analyze_critical_path(t.trace);
    ASSERT_EQ(cp.path.size(), 2u + extra);
    const auto idle = analysis::attribute_idle(t.trace, cp);
    EXPECT_EQ(idle.gaps, 1u + extra) << extra;
    EXPECT_DOUBLE_EQ(idle.host_ns, 5) << extra;
    EXPECT_DOUBLE_EQ(idle.launch_ns, 25) << extra;
    EXPECT_DOUBLE_EQ(idle.unattributed_ns, 100.0 * extra) << extra;
  }
}

app::AnalyzeResults launch_bound_run(TimeNs gap) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("k");
  TimeNs at = 1'000;
  for (int i = 0; i < 50; ++i) {  // 2 us kernels, each launched `gap` after the previous one ended
    launch(t, k, i + 1, at - 500, at - 490, at, at + 2'000);
    at += 2'000 + gap;
  }
  app::AnalyzeResults r;
  r.trace = std::move(t.trace);
  r.dag = analysis::analyze_critical_path(r.trace);
  r.idle = analysis::attribute_idle(r.trace, r.dag);
  return r;
}

TEST(LaunchBound, FiresWhenGapsOutweighKernelsAndNamesTheCause) {
  auto r = launch_bound_run(20'000);  // 20 us gaps, 2 us kernels: host work (launch calls start 500 ns early)
  const auto f = report::launch_bound_finding(r);
  ASSERT_TRUE(f);
  EXPECT_EQ((*f)["id"], "launch_bound");
  const std::string m = (*f)["message"];
  EXPECT_NE(m.find("host work"), std::string::npos) << m;
  const std::string remedy = (*f)["remedy"];  // the remedy is its own field (analysis.json 1.4)
  EXPECT_NE(remedy.find("CUDA / HIP graph"), std::string::npos) << remedy;
  EXPECT_GT((*f)["evidence"]["idle_fraction"].get<double>(), 0.9);
  EXPECT_NEAR((*f)["evidence"]["median_gap_ns"].get<double>(), 20'000, 1);
  EXPECT_GT((*f)["evidence"]["launches_per_second"].get<double>(), 40'000);
}

TEST(LaunchBound, FindingIdsAreInTheAnalysisSchema) {
  // analysis.json's finding ids are an enum in its schema: a new finding must be added there too (the fuzz
  // harness found launch_bound and shape_mix missing).
  std::ifstream in(std::string(RPL_SOURCE_DIR) + "/schemas/analysis.schema.json");
  const auto schema = nlohmann::json::parse(in);
  const auto& ids = schema["properties"]["findings"]["items"]["properties"]["id"]["enum"];
  auto r = launch_bound_run(20'000);
  const auto f = report::launch_bound_finding(r);
  ASSERT_TRUE(f);
  for (const char* id : {"launch_bound", "shape_mix", "gpu_idle", "unstable_kernel"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  EXPECT_NE(std::find(ids.begin(), ids.end(), (*f)["id"]), ids.end());
}

TEST(LaunchBound, QuietWhenTheGpuIsBusy) {
  auto r = launch_bound_run(200);  // gaps a tenth of the kernels
  EXPECT_FALSE(report::launch_bound_finding(r));
}

// ---- launch shapes ----

TEST(KernelShapes, SplitShapesAndDurationClassesSeparateSizesFromNoise) {
  InMemoryTrace t = base();
  Index gemm = t.add_symbol("gemm");
  TimeNs at = 0;
  auto add = [&](uint32_t grid_x, TimeNs duration) {
    t.add_dispatch(gemm, at, at + duration, kNoIndex, 128)->grid[0] = grid_x;
    at += duration + 10;
  };
  // Shape A (grid 256): three problem sizes repeating (14, 35, 86 us, each +-1%) over 6 steps.
  // Shape B (grid 512): 48 us, steady.
  for (int step = 0; step < 6; ++step) {
    add(256, 14'000 + 100 * (step % 2));
    add(256, 35'000 + 200 * (step % 3));
    add(256, 86'000 - 300 * (step % 2));
    add(512, 48'000 + 100 * (step % 2));
  }
  auto stats = analysis::compute_kernel_stats(t.trace);
  analysis::compute_kernel_shapes(t.trace, stats);
  const auto& k = stats.kernels[0];
  ASSERT_EQ(k.shapes.size(), 2u);
  EXPECT_GT(k.durations.cv, 0.4);       // all dispatches: sizes mixed
  EXPECT_GT(k.within_shape_cv, 0.3);    // the grid alone does not separate shape A's sizes
  EXPECT_LT(k.within_class_cv, 0.02);   // the duration classes do
  EXPECT_EQ(k.stability, analysis::Stability::Stable);
  EXPECT_TRUE(k.has_duration_classes);
  const auto& a = k.shapes[0].grid[0] == 256 ? k.shapes[0] : k.shapes[1];
  ASSERT_EQ(a.class_medians_ns.size(), 3u);
  EXPECT_NEAR(a.class_medians_ns[0], 14'050, 60);
  EXPECT_NEAR(a.class_medians_ns[2], 85'850, 200);
}

TEST(KernelShapes, RealNoiseStaysUnstableAndALoneOutlierJoinsItsNeighbour) {
  InMemoryTrace t = base();
  Index k = t.add_symbol("noisy");
  // A continuous spread (no 20% jump between neighbours) plus one 3x outlier: one class, unstable.
  const TimeNs durations[] = {10'000, 11'000, 12'000, 13'000, 14'000, 15'000, 16'000, 17'000, 45'000};
  TimeNs at = 0;
  for (TimeNs d : durations) {
    t.add_dispatch(k, at, at + d);
    at += d + 10;
  }
  auto stats = analysis::compute_kernel_stats(t.trace);
  analysis::compute_kernel_shapes(t.trace, stats);
  const auto& s = stats.kernels[0];
  ASSERT_EQ(s.shapes.size(), 1u);
  EXPECT_EQ(s.shapes[0].class_medians_ns.size(), 1u);
  EXPECT_FALSE(s.has_duration_classes);
  EXPECT_DOUBLE_EQ(s.within_class_cv, s.durations.cv);
  EXPECT_EQ(s.stability, analysis::Stability::Unstable);
}

}  // namespace
}  // namespace rpl

namespace rpl::report {
namespace {

// Issue 13 item 4: each vendor's own words in the terminal and HTML (the JSON keys stay neutral).
TEST(VendorTerms, NvidiaAndAmdWords) {
  EXPECT_EQ(limiter_text("waves", "sm_90"), "warp slots");
  EXPECT_EQ(limiter_text("shared_memory", "sm_90"), "shared memory");
  EXPECT_EQ(limiter_text("blocks", "sm_80"), "blocks per SM");
  EXPECT_EQ(limiter_text("registers", "sm_90"), "registers");
  EXPECT_EQ(limiter_text("waves", "gfx942"), "wave slots");
  EXPECT_EQ(limiter_text("vgpr", "gfx942"), "VGPRs");
  EXPECT_EQ(limiter_text("lds", "gfx90a"), "LDS");
  analysis::Occupancy o;
  o.waves_per_simd = 24;
  o.max_waves_per_simd = 64;
  o.blocks_per_cu = 3;
  EXPECT_EQ(occupancy_text(o, "sm_90"), "24 warps per SM of 64, 3 blocks per SM");
  EXPECT_EQ(occupancy_text(o, "gfx942"), "24 waves per SIMD of 64, 3 workgroups per CU");
  EXPECT_EQ(resources_text(168, 0, 0, 49152, "sm_90"), "registers per thread 168, shared memory 48.0 KiB");
  EXPECT_EQ(resources_text(128, 4, 96, 512, "gfx942"), "arch VGPRs 128, AGPRs 4, SGPRs 96, LDS 512 B");
  const std::string terms = resources_text(168, 0, 0, 0, "sm_90") + occupancy_text(o, "sm_90");
  for (const char* amd : {"SIMD", "VGPR", "SGPR", "LDS", "wave", "CU"})
    EXPECT_EQ(terms.find(amd), std::string::npos) << amd;
}

}  // namespace
}  // namespace rpl::report
