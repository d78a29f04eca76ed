// AMD deep analysis from stored counters (analysis/amd_counter_analysis): rocprof-compute's hit-rate and
// utilisation formulas on exact values, what is missing or inconsistent, RDNA, the merge with ATT, the
// shipped counter files that promise the metrics, and the rules that fire (and do not) through `analyze` on
// rocpd databases written by our schema-faithful writer (tests/amd_rocpd checks it against AMD's SQL).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analysis/amd_counter_analysis.hpp"
#include "analysis/counter_file.hpp"
#include "app/profile_presets.hpp"
#include "store/rocpd_writer.hpp"
#include "testing/cli.hpp"
#include "testing/counter_trace.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::analysis;
using rpl::test::CounterTraceBuilder;

namespace {

constexpr double kCus = 304, kXcds = 8;
constexpr double kGuiPerXcd = 10000;  // active cycles of one die

struct AmdKernel {
  double l1_hit = 0.8, l2_hit = 0.75, valu = 0.5, mfma = 0.25, threads = 0.9;
};

// Counters of one dispatch that give exactly `k` with the formulas (MI300X: 304 CUs, 8 XCDs).
void add_counters(CounterTraceBuilder& b, Index d, const AmdKernel& k) {
  const double accesses = 1000;
  const double misses = (1 - k.l1_hit) * accesses;  // split over the four L1->L2 request kinds
  b.counters(d, {{"TCP_TOTAL_CACHE_ACCESSES_sum", accesses},
                 {"TCP_TCC_READ_REQ_sum", misses * 0.5},
                 {"TCP_TCC_WRITE_REQ_sum", misses * 0.3},
                 {"TCP_TCC_ATOMIC_WITH_RET_REQ_sum", misses * 0.1},
                 {"TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", misses * 0.1},
                 {"TCC_HIT_sum", 400 * k.l2_hit},
                 {"TCC_MISS_sum", 400 * (1 - k.l2_hit)},
                 {"GRBM_GUI_ACTIVE", kGuiPerXcd * kXcds}});
  const double valu = k.valu * kGuiPerXcd * kCus;
  b.counters(d, {{"SQ_ACTIVE_INST_VALU", valu},
                 {"SQ_VALU_MFMA_BUSY_CYCLES", k.mfma * kGuiPerXcd * kCus * 4},
                 {"SQ_THREAD_CYCLES_VALU", k.threads * valu * 64}});
}

struct Mi300x {
  CounterTraceBuilder b;
  Index gpu, kernel;
  Mi300x() {
    gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
    b.trace().agents[gpu].wave_front_size = 64;
    b.trace().agents[gpu].simd_per_cu = 4;
    b.trace().agents[gpu].max_waves_per_simd = 8;
    kernel = b.kernel("gemm(float*)", "_Z4gemmPf");
  }
  std::vector<Index> dispatches(int n, const AmdKernel& k, TimeNs duration = 50000) {
    std::vector<Index> out;
    for (int i = 0; i < n; ++i) {
      out.push_back(b.dispatch(kernel, gpu, 1000000 + 100000 * i, duration));
      add_counters(b, out.back(), k);
    }
    return out;
  }
};

bool has_note(const DeepAnalysis& d, std::string_view text) {
  return std::any_of(d.notes.begin(), d.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST(AmdCounterAnalysis, RocprofComputeFormulasGiveExactFractions) {
  Mi300x m;
  const auto d = amd_counter_deep_analysis(m.b.trace(), m.dispatches(3, {}));
  EXPECT_EQ(d.source, "counters");
  ASSERT_TRUE(d.available);
  ASSERT_TRUE(d.l1_hit_rate && d.l2_hit_rate && d.valu_utilization && d.mfma_utilization && d.thread_utilization);
  EXPECT_NEAR(*d.l1_hit_rate, 0.8, 1e-12);
  EXPECT_NEAR(*d.l2_hit_rate, 0.75, 1e-12);
  EXPECT_NEAR(*d.valu_utilization, 0.5, 1e-12);   // GRBM_GUI_ACTIVE divided by the 8 XCDs
  EXPECT_NEAR(*d.mfma_utilization, 0.25, 1e-12);  // 4 matrix cores per CU
  EXPECT_NEAR(*d.thread_utilization, 0.9, 1e-12);
  EXPECT_TRUE(has_note(d, "unvalidated on AMD hardware"));
}

TEST(AmdCounterAnalysis, CountersFromDifferentPassesCombineAsPerDispatchMeans) {
  // The L1 formula's five TCP counters need two passes: the atomics arrive on other dispatch records (a
  // second run) with their own count of dispatches. Means per dispatch still give the exact rate.
  Mi300x m;
  std::vector<Index> all;
  for (int i = 0; i < 2; ++i) {
    Index d = m.b.dispatch(m.kernel, m.gpu, 1000 * i, 500);
    m.b.counters(d, {{"TCP_TOTAL_CACHE_ACCESSES_sum", 1000}, {"TCP_TCC_READ_REQ_sum", 100}, {"TCP_TCC_WRITE_REQ_sum", 50}});
    all.push_back(d);
  }
  for (int i = 0; i < 4; ++i) {  // the atomics pass saw 4 instances
    Index d = m.b.dispatch(m.kernel, m.gpu, 10000 + 1000 * i, 700);
    m.b.counters(d, {{"TCP_TCC_ATOMIC_WITH_RET_REQ_sum", 30}, {"TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum", 20}});
    all.push_back(d);
  }
  const auto d = amd_counter_deep_analysis(m.b.trace(), all);
  ASSERT_TRUE(d.l1_hit_rate);
  EXPECT_NEAR(*d.l1_hit_rate, 1.0 - (100 + 50 + 30 + 20) / 1000.0, 1e-12);
}

TEST(AmdCounterAnalysis, MissingCountersAreNamedAndNothingIsInvented) {
  Mi300x m;
  Index d = m.b.dispatch(m.kernel, m.gpu, 0, 1000);
  m.b.counters(d, {{"TCC_HIT_sum", 10}, {"SQ_ACTIVE_INST_VALU", 5}});
  const auto a = amd_counter_deep_analysis(m.b.trace(), {d});
  EXPECT_FALSE(a.available);
  EXPECT_FALSE(a.l2_hit_rate || a.valu_utilization || a.thread_utilization || a.l1_hit_rate || a.mfma_utilization);
  EXPECT_TRUE(has_note(a, "L2 hit rate not computed: TCC_MISS_sum not in the trace")) << a.notes.front();
  EXPECT_TRUE(has_note(a, "VALU utilisation not computed: GRBM_GUI_ACTIVE not in the trace"));
  EXPECT_TRUE(has_note(a, "thread utilisation not computed: SQ_THREAD_CYCLES_VALU not in the trace"));
}

TEST(AmdCounterAnalysis, InconsistentPassesAreClampedWithANoteAndZeroDenominatorsSaid) {
  Mi300x m;
  Index d = m.b.dispatch(m.kernel, m.gpu, 0, 1000);
  m.b.counters(d, {{"SQ_ACTIVE_INST_VALU", 100}, {"SQ_THREAD_CYCLES_VALU", 100 * 64 * 1.3},  // 130 % threads
                   {"TCC_HIT_sum", 0}, {"TCC_MISS_sum", 0}});
  const auto a = amd_counter_deep_analysis(m.b.trace(), {d});
  ASSERT_TRUE(a.thread_utilization);
  EXPECT_EQ(*a.thread_utilization, 1.0);
  EXPECT_TRUE(has_note(a, "thread utilisation came out as 1.3 (above 1)"));
  EXPECT_FALSE(a.l2_hit_rate);
  EXPECT_TRUE(has_note(a, "L2 hit rate not computed: its denominator is 0"));
}

TEST(AmdCounterAnalysis, XcdCountFollowsFromTheCusOnMi300AndIsOneOnMi200) {
  Mi300x m;
  m.b.trace().agents[m.gpu].cu_count = 100;  // not a whole number of 38-CU dies
  auto a = amd_counter_deep_analysis(m.b.trace(), m.dispatches(1, {}));
  EXPECT_FALSE(a.valu_utilization);
  EXPECT_TRUE(a.thread_utilization);  // a ratio of SQ counters: no die count needed
  EXPECT_TRUE(has_note(a, "XCD count of a 100-CU gfx942 agent is unknown"));
  // A CPX partition: one 38-CU die per agent; GRBM_GUI_ACTIVE then counts one die.
  CounterTraceBuilder cpx;
  Index part = cpx.agent("gfx942", "AMD Instinct MI300X", 38);
  Index d0 = cpx.dispatch(cpx.kernel("k"), part, 0, 1000);
  cpx.counters(d0, {{"GRBM_GUI_ACTIVE", 1000}, {"SQ_ACTIVE_INST_VALU", 0.7 * 1000 * 38}});
  a = amd_counter_deep_analysis(cpx.trace(), {d0});
  ASSERT_TRUE(a.valu_utilization);
  EXPECT_NEAR(*a.valu_utilization, 0.7, 1e-12);

  CounterTraceBuilder b;
  Index gpu = b.agent("gfx90a", "AMD Instinct MI210", 104);
  Index k = b.kernel("k");
  Index d = b.dispatch(k, gpu, 0, 1000);
  b.counters(d, {{"GRBM_GUI_ACTIVE", 1000}, {"SQ_ACTIVE_INST_VALU", 0.6 * 1000 * 104}});
  a = amd_counter_deep_analysis(b.trace(), {d});
  ASSERT_TRUE(a.valu_utilization);
  EXPECT_NEAR(*a.valu_utilization, 0.6, 1e-12);
}

TEST(AmdCounterAnalysis, RdnaHasTheL2HitRateOnlyAndSaysWhy) {
  CounterTraceBuilder b;
  Index gpu = b.agent("gfx1100", "AMD Radeon RX 7900 XTX", 96);
  Index k = b.kernel("k");
  Index d = b.dispatch(k, gpu, 0, 1000);
  b.counters(d, {{"GL2C_HIT", 90}, {"GL2C_MISS", 10}, {"SQ_ACTIVE_INST_VALU", 5}});  // un-suffixed names fall back
  const auto a = amd_counter_deep_analysis(b.trace(), {d});
  ASSERT_TRUE(a.l2_hit_rate);
  EXPECT_NEAR(*a.l2_hit_rate, 0.9, 1e-12);
  EXPECT_FALSE(a.valu_utilization || a.thread_utilization || a.l1_hit_rate);
  EXPECT_TRUE(has_note(a, "(RDNA): only the L2 hit rate has counters"));
  EXPECT_EQ(amd_deep_counters("gfx1100"), (std::vector<std::string>{"GL2C_HIT_sum", "GL2C_MISS_sum"}));
  EXPECT_TRUE(amd_deep_counters("sm_90").empty());
}

TEST(AmdCounterAnalysis, AttFillsWhatTheCountersDidNotMeasure) {
  Mi300x m;
  DeepAnalysis counters = amd_counter_deep_analysis(m.b.trace(), m.dispatches(1, {}));
  DeepAnalysis att;
  att.source = "att";
  att.available = true;
  att.stall_fraction = 0.7;
  att.thread_utilization = 0.1;  // the counters' value wins
  att.notes.push_back("one wave file");
  const auto merged = merge_deep_analyses(counters, att);
  EXPECT_EQ(merged.source, "att+counters");
  EXPECT_EQ(merged.stall_fraction, 0.7);
  EXPECT_NEAR(*merged.thread_utilization, 0.9, 1e-12);
  EXPECT_TRUE(has_note(merged, "ATT: one wave file"));
}

TEST(AmdCounterAnalysis, ShippedCounterFilesCarryEveryCounterTheirMetricsNeed) {
  for (const std::string arch : {"gfx90a", "gfx942"}) {
    auto counters_of = [&](const std::string& file) {
      const auto text = app::shipped_counter_file(arch, file);
      EXPECT_TRUE(text) << arch << " " << file;
      return text ? parse_counter_file(*text, file).all_counters() : std::vector<std::string>{};
    };
    const auto full = counters_of("full_profile.txt");
    auto split = counters_of("compute_bound.txt");
    for (auto& c : counters_of("memory_bound.txt")) split.push_back(c);
    for (const auto& c : amd_deep_counters(arch)) {
      EXPECT_NE(std::find(full.begin(), full.end(), c), full.end()) << arch << " full_profile.txt lacks " << c;
      EXPECT_NE(std::find(split.begin(), split.end(), c), split.end()) << arch << " compute+memory lack " << c;
    }
  }
}

// ---- through `analyze`, on rocpd databases ----------------------------------------------------------

namespace {

nlohmann::json analyze_kernel(const AmdKernel& k, test::TempDir& dir, const std::string& name) {
  Mi300x m;
  m.dispatches(2, k);
  m.b.trace().processes[0].guid = "0198a0b1-2c3d-7e4f-8a9b-0000000000a1";  // one database per output directory
  const std::string db = dir.file(name + ".db");
  rocpd::write_process(m.b.trace(), 0, db);
  const auto r = test::run_cli({"analyze", db, "-o", dir.file(name)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::validate_against_schema("analysis", dir.file(name + "/analysis.json")), "");
  EXPECT_EQ(test::validate_against_schema("roofline", dir.file(name + "/roofline.json")), "");
  const auto analysis = nlohmann::json::parse(test::read_file(dir.file(name + "/analysis.json")));
  for (const auto& kernel : analysis["ranking"]["kernels"])
    if (kernel["name"] == "gemm(float*)") return kernel;
  ADD_FAILURE() << "gemm missing in " << analysis["ranking"].dump(1);
  return {};
}

std::vector<std::string> fired_rules(const nlohmann::json& kernel) {
  std::vector<std::string> out;
  for (const auto& l : kernel["bottleneck"]["fired"]) out.push_back(l["rule"]);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST(AmdCounterRules, DivergenceFiresOnAmdWhenFewThreadsAreActiveAndOnlyThen) {
  test::TempDir dir;
  AmdKernel divergent;
  divergent.threads = 0.4;
  auto k = analyze_kernel(divergent, dir, "divergent");
  const auto& deep = k["deep_analysis"];
  ASSERT_TRUE(deep.is_object()) << k.dump(1);
  EXPECT_EQ(deep["source"], "counters");
  EXPECT_NEAR(deep["thread_utilization"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(deep["l2_hit_rate"].get<double>(), 0.75, 1e-9);
  EXPECT_EQ(k["bottleneck"]["primary"]["label"], "divergence limited") << k["bottleneck"].dump(1);
  EXPECT_TRUE(contains(fired_rules(k), "DV2"));

  AmdKernel uniform;
  uniform.threads = 0.95;
  k = analyze_kernel(uniform, dir, "uniform");
  EXPECT_FALSE(contains(fired_rules(k), "DV2")) << k["bottleneck"].dump(1);
  EXPECT_NEAR(k["bottleneck"]["inputs"]["thread_utilization"].get<double>(), 0.95, 1e-9);
}

TEST(AmdCounterRules, BusyVectorOrMatrixUnitsAreComputeThroughputLimitedAndIdleOnesAreNot) {
  test::TempDir dir;
  AmdKernel valu;
  valu.valu = 0.9;
  auto k = analyze_kernel(valu, dir, "valu");
  EXPECT_EQ(k["bottleneck"]["primary"]["label"], "compute throughput limited") << k["bottleneck"].dump(1);
  EXPECT_TRUE(contains(fired_rules(k), "CT3"));
  EXPECT_FALSE(contains(fired_rules(k), "CT4"));

  AmdKernel mfma;
  mfma.mfma = 0.85;
  k = analyze_kernel(mfma, dir, "mfma");
  EXPECT_TRUE(contains(fired_rules(k), "CT4")) << k["bottleneck"].dump(1);
  EXPECT_FALSE(contains(fired_rules(k), "CT3"));

  k = analyze_kernel(AmdKernel{}, dir, "idle");  // VALU 50 %, MFMA 25 %, 90 % of threads
  EXPECT_TRUE(fired_rules(k).empty()) << k["bottleneck"].dump(1);
  EXPECT_TRUE(k["bottleneck"]["primary"].is_null());
}
