// Run-to-run stability and device-state warnings (analysis/run_stability): the thresholds both ways, and the
// findings analysis.json carries for them (schema-checked), with the remedy.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/run_stability.hpp"
#include "app/analyze.hpp"
#include "report/analyze_report.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::analysis;

namespace {

DurationStats stats(std::vector<double> v) { return compute_duration_stats(v); }

DeviceMetricSummary device(double min_clock, double max_clock) {
  DeviceMetricSummary d;
  d.device = 0;
  d.device_name = "GPU0";
  d.min_sm_clock_mhz = min_clock;
  d.max_sm_clock_mhz = max_clock;
  return d;
}

}  // namespace

TEST(RunStability, UnstableNeedsEnoughRunsAndACvAboveModerate) {
  EXPECT_TRUE(run_to_run(stats({100, 130, 80}), 3, {}, {}).unstable());
  EXPECT_FALSE(run_to_run(stats({100, 130}), 2, {}, {}).unstable());        // too few runs to judge
  EXPECT_FALSE(run_to_run(stats({100, 101, 99}), 3, {}, {}).unstable());    // CV 0.01: stable
  // A kernel can be unstable while the runtime is not; the most variable comes first.
  auto r = run_to_run(stats({100, 101, 99}), 3,
                      {{"steady", stats({50, 50, 50})}, {"noisy", stats({10, 30, 20})}, {"noisier", stats({1, 9, 5})}}, {});
  EXPECT_TRUE(r.unstable());
  ASSERT_EQ(r.unstable_kernels.size(), 2u);
  EXPECT_EQ(r.unstable_kernels[0].name, "noisier");
}

TEST(RunStability, ClocksThatMoveAndABusyGpuAreWarnedAboutAndSteadyOnesAreNot) {
  auto w = device_state_warnings({{device(1410, 1980)}, {device(1900, 1980)}}, 40.0);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("40% busy"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("between 1410 and 1980 MHz within run 1"), std::string::npos) << w[1];
  EXPECT_NE(w[1].find("not locked"), std::string::npos);
  // At the thresholds (5 % spread, 5 % busy) nothing is said; no monitor data, nothing either.
  EXPECT_TRUE(device_state_warnings({{device(1881, 1980)}}, kBusyBeforeRunPct).empty());
  EXPECT_TRUE(device_state_warnings({{DeviceMetricSummary{}}}, std::nullopt).empty());
  EXPECT_NE(instability_remedy().find("docs/reproducibility.md"), std::string::npos);
}

TEST(RunStability, AnalysisJsonHasTheRunToRunAndReproducibilityFindings) {
  test::TempDir dir;
  app::AnalyzeOptions o;
  o.databases = {test::make_fixture_db(dir.path())};
  app::AnalyzeResults r = app::run_analyze(o);
  auto findings_of = [&](const app::AnalyzeResults& results) {
    const auto doc = report::analysis_document(results, report::ReportOptions{});
    const std::string path = dir.file("analysis.json");
    std::ofstream(path) << doc.dump(2);
    EXPECT_EQ(test::validate_against_schema("analysis", path), "");
    return doc["findings"];
  };
  auto has = [](const nlohmann::json& findings, const char* id) {
    for (const auto& f : findings)
      if (f["id"] == id) return true;
    return false;
  };
  EXPECT_FALSE(has(findings_of(r), "run_to_run_instability"));  // `analyze`: no runs to compare
  r.run_to_run = run_to_run(stats({100, 101, 99}), 3, {}, {});
  EXPECT_FALSE(has(findings_of(r), "run_to_run_instability"));  // steady runs
  r.run_to_run = run_to_run(stats({100, 160, 70}), 3, {},
                            device_state_warnings({{device(1410, 1980)}}, std::nullopt));
  const auto findings = findings_of(r);
  ASSERT_TRUE(has(findings, "run_to_run_instability")) << findings.dump(1);
  ASSERT_TRUE(has(findings, "reproducibility")) << findings.dump(1);
  for (const auto& f : findings)
    if (f["id"] == "run_to_run_instability") {
      EXPECT_NE(f["message"].get<std::string>().find("lock the clocks"), std::string::npos);
      EXPECT_EQ(f["evidence"]["runs"], 3);
      EXPECT_EQ(f["evidence"]["device_warnings"].size(), 1u);
    }
}
