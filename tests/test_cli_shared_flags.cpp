// The flags `analyze` and `profile` share (src/cli/analysis_flags): every one of them works on both commands.
// Each test runs once per command over the same trace, the stand-in rocprofv3's (tests/doubles/
// fake_rocprofv3.cpp) with roofline counters: `profile` runs it (--runs 1 --roofline), `analyze` reads the
// databases such a profile run kept.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::CliResult;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::TempDir;

namespace {

// 4 x 50 us + 2 x 10 us: runtime 0.220 ms, softmax alone 0.020 ms.
constexpr const char* kKernels = "gemm(float*):4:50000;softmax(float*):2:10000";
// One dispatch ends before it starts: an invalid trace unless --lenient.
constexpr const char* kInvalidKernels = "gemm(float*):4:50000;softmax(float*):2:10000;broken(int):1:-5000";

enum class Command { Analyze, Profile };

std::vector<std::pair<std::string, std::string>> fake_env(const std::string& kernels) {
  const char* path = std::getenv("PATH");
  return {{"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")},
          {"FAKE_ROCPROFV3_KERNELS", kernels}};
}

std::vector<std::string> profile_args(const std::vector<std::string>& flags, const std::string& out) {
  std::vector<std::string> args = {"profile", "--platform", "rocm", "--runs", "1", "--roofline", "-o", out};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/bin/true"});
  return args;
}

nlohmann::json load(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

class SharedFlags : public ::testing::TestWithParam<Command> {
 protected:
  // Runs the command under test with `flags` (and -o out) over the trace of `kernels`.
  CliResult run(const std::vector<std::string>& flags, const std::string& out, const char* kernels = kKernels) {
    if (GetParam() == Command::Profile) return run_cli(profile_args(flags, out), fake_env(kernels));
    // analyze: the databases of a profile run over the same trace (--lenient, so that an invalid one is kept).
    const std::string source = dir_.file("source-" + std::to_string(sources_++));
    auto made = run_cli(profile_args({"--lenient", "--quiet"}, source), fake_env(kernels));
    EXPECT_EQ(made.exit_code, 0) << made.err;
    const auto profile = load(source + "/profile.json");
    std::vector<std::string> args = {"analyze"};
    for (const auto& db : profile["runs"]["per_run"][0]["databases"]) args.push_back(db.get<std::string>());
    args.insert(args.end(), {"-o", out});
    args.insert(args.end(), flags.begin(), flags.end());
    return run_cli(args);
  }
  std::string out(const std::string& name) { return dir_.file(name); }

 private:
  TempDir dir_;
  int sources_ = 0;
};

TEST_P(SharedFlags, OutputDirGetsEveryOutputAndNoHtmlLeavesTheReportOut) {
  auto r = run(std::vector<std::string>{}, out("with"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"profile.json", "dag.json", "analysis.json", "roofline.json", "report.html"})
    EXPECT_TRUE(fs::exists(out("with") + "/" + f)) << f;
  r = run({"--no-html"}, out("without"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out("without") + "/profile.json"));
  EXPECT_FALSE(fs::exists(out("without") + "/report.html"));
}

TEST_P(SharedFlags, JsonPrintsOnlyTheCombinedDocument) {
  auto r = run({"--json"}, out("o"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  for (const char* key : {"schema_version", "profile", "dag", "analysis"}) EXPECT_TRUE(doc.contains(key)) << key;
}

TEST_P(SharedFlags, QuietPrintsOnlyTheRuntimeAndKernelFiltersIt) {
  auto r = run({"--quiet"}, out("all"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), 0.220, 1e-9);
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);
  r = run({"--quiet", "--kernel", "^soft"}, out("soft"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), 0.020, 1e-9);  // only softmax: 2 x 10 us
}

TEST_P(SharedFlags, DebugLogsOnStderr) {
  auto r = run({"--quiet"}, out("plain"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("debug: "), std::string::npos) << r.err;
  r = run({"--debug"}, out("debug"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("debug: critical path"), std::string::npos) << r.err;
}

TEST_P(SharedFlags, TopLimitsTheRanking) {
  auto r = run({"--top", "1"}, out("o"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load(out("o") + "/analysis.json")["ranking"]["kernels"].size(), 1u);
  EXPECT_EQ(run({"--top", "0"}, out("zero")).exit_code, 2);
}

TEST_P(SharedFlags, WhatIfIsPredicted) {
  auto r = run({"--what-if", "gemm=0.5"}, out("o"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto what_if = load(out("o") + "/analysis.json")["what_if"];
  ASSERT_EQ(what_if.size(), 1u) << what_if.dump();
  EXPECT_EQ(run({"--what-if", "gemm=fast"}, out("bad")).exit_code, 2);
}

TEST_P(SharedFlags, InferDependenciesIsOptIn) {
  auto r = run(std::vector<std::string>{}, out("off"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load(out("off") + "/dag.json")["inference_enabled"], false);
  r = run({"--infer-dependencies"}, out("on"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load(out("on") + "/dag.json")["inference_enabled"], true);
}

TEST_P(SharedFlags, LenientDropsInvalidRecordsWithAWarning) {
  auto r = run(std::vector<std::string>{}, out("strict"), kInvalidKernels);
  EXPECT_EQ(r.exit_code, 7) << r.err;
  r = run({"--lenient", "--quiet"}, out("lenient"), kInvalidKernels);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NEAR(std::stod(r.out), 0.220, 1e-9);  // the broken dispatch is dropped
}

TEST_P(SharedFlags, CeilingsFileIsRead) {
  auto r = run({"--ceilings", out("missing.json")}, out("o"));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
}

TEST_P(SharedFlags, MemoryBandwidthOverridesTheHbmCeiling) {
  auto r = run({"--memory-bandwidth-gbps", "5000"}, out("o"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto hbm = load(out("o") + "/roofline.json")["devices"][0]["ceilings"]["bandwidth_gbps"]["hbm"];
  EXPECT_EQ(hbm["value"], 5000.0) << hbm.dump();
  EXPECT_EQ(hbm["source"], "override") << hbm.dump();
  for (const char* bad : {"0", "-5", "nan"}) EXPECT_EQ(run({"--memory-bandwidth-gbps", bad}, out("bad")).exit_code, 2) << bad;
}

TEST_P(SharedFlags, PerDispatchAddsAPointPerDispatch) {
  auto r = run(std::vector<std::string>{}, out("kernels"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto plain = load(out("kernels") + "/roofline.json");  // a range-for over load(...)[...] would read a dead temporary
  for (const auto& k : plain["kernels"]) EXPECT_FALSE(k.contains("dispatches"));
  r = run({"--per-dispatch"}, out("dispatches"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto kernels = load(out("dispatches") + "/roofline.json")["kernels"];
  ASSERT_EQ(kernels.size(), 2u);
  for (const auto& k : kernels) EXPECT_EQ(k["dispatches"].size(), k["dispatch_count"]) << k.dump();
}

INSTANTIATE_TEST_SUITE_P(AnalyzeAndProfile, SharedFlags, ::testing::Values(Command::Analyze, Command::Profile),
                         [](const auto& info) { return info.param == Command::Analyze ? "analyze" : "profile"; });

}  // namespace
