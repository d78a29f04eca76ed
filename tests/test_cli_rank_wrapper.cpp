// `rocm-perf profile --rank-wrapper` (issue 33): the SLURM / MPI form honours the options the launcher form
// honours (the preset's trace settings, the platform check, --monitor-device, counter files and --roofline)
// or refuses them with exit 17 before anything runs (--runs N, --pc-sampling, --deep on AMD, and the options that
// only shape the analysis a rank does not do: --json, --top, --what-if, ...). End to end
// through the CLI with the rocprofv3 and ROCm SMI stand-ins (tests/doubles/).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::SqlFile;
using rpl::test::TempDir;

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

Env rank_env(const TempDir& dir, const std::string& rank, Env extra = {}) {
  const char* path = std::getenv("PATH");
  extra.push_back({"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")});
  extra.push_back({"FAKE_ROCPROFV3_ARGV_LOG", dir.file("rocprofv3.argv")});
  extra.push_back({"SLURM_PROCID", rank});
  extra.push_back({"RPL_ROCM_SMI_LIBRARY", RPL_FAKE_ROCM_SMI});
  return extra;
}

std::vector<std::string> wrapper(const TempDir& dir, std::vector<std::string> flags) {
  std::vector<std::string> args = {"profile", "--platform", "rocm", "--rank-wrapper", "-o", dir.file("out")};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/bin/true"});
  return args;
}

std::string rank_database(const TempDir& dir, const std::string& rank) {
  for (const auto& e : fs::recursive_directory_iterator(dir.file("out/ranks/rank-" + rank)))
    if (e.path().filename().string().ends_with("_results.db")) return e.path().string();
  return {};
}

}  // namespace

TEST(RankWrapper, ThePresetsTraceSettingsReachTheCollector) {
  TempDir dir;
  auto r = run_cli(wrapper(dir, {"--preset", "api-overhead"}), rank_env(dir, "0"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string argv = read_file(dir.file("rocprofv3.argv"));
  // What the launcher form asks rocprofv3 for with this preset (tests/test_cli_presets.cpp): was dropped before.
  for (const char* f : {"--hip-trace", "--hsa-trace", "--marker-trace", "--memory-copy-trace"})
    EXPECT_NE(argv.find(f), std::string::npos) << argv;
  // api-overhead's statistics are an analysis output: said where they come from, not silently dropped.
  EXPECT_NE(r.err.find("--api-stats"), std::string::npos) << r.err;
}

TEST(RankWrapper, TheCommunicationPresetTracesRcclCollectsItsCountersAndMonitorsTheDevice) {
  TempDir dir;
  for (const char* rank : {"0", "1"}) {
    auto r = run_cli(wrapper(dir, {"--preset", "communication"}), rank_env(dir, rank));
    ASSERT_EQ(r.exit_code, 0) << rank << ": " << r.err;
    EXPECT_EQ(r.out, "");
    const std::string db = rank_database(dir, rank);
    ASSERT_FALSE(db.empty()) << rank;
    SqlFile sql(db);
    EXPECT_GT(sql.number("SELECT COUNT(*) FROM rocpd_sample"), 0) << "device samples in the rank's database";
    EXPECT_GT(sql.number("SELECT COUNT(*) FROM rocpd_pmc_event"), 0) << "counter values in the rank's database";
    EXPECT_TRUE(fs::exists(dir.file(std::string("out/rank-counters/rank-") + rank)));
  }
  const std::string argv = read_file(dir.file("rocprofv3.argv"));
  EXPECT_NE(argv.find("--rccl-trace"), std::string::npos) << argv;
  EXPECT_NE(argv.find("--marker-trace"), std::string::npos) << argv;
  EXPECT_NE(argv.find("-i "), std::string::npos) << argv;  // the counter passes
  // The counter runs' own databases are not ranks: analyze DIR sees the two trace databases only.
  auto a = run_cli({"analyze", dir.file("out"), "-o", dir.file("analysis"), "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["ranks"].size(), 2u);
}

TEST(RankWrapper, RooflineCountersAreStoredInTheRanksDatabase) {
  TempDir dir;
  auto r = run_cli(wrapper(dir, {"--roofline"}), rank_env(dir, "3"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  SqlFile sql(rank_database(dir, "3"));
  EXPECT_GT(sql.number("SELECT COUNT(DISTINCT name) FROM rocpd_info_pmc"), 0);
  EXPECT_NE(r.err.find("counter values in the rank's database"), std::string::npos) << r.err;
}

TEST(RankWrapper, UnderTorchrunWithSeveralRanksTheCounterPassIsSkippedSayingWhy) {
  // A second start of the application in a torchrun rank's slot cannot rendezvous with the other ranks (two H200s):
  // the trace stands, the counter pass is skipped with a warning that names the launcher form, exit 0.
  TempDir dir;
  auto r = run_cli(wrapper(dir, {"--roofline"}),
                   rank_env(dir, "1", {{"TORCHELASTIC_RESTART_COUNT", "0"}, {"WORLD_SIZE", "2"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the counter pass is skipped"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rocm-perf profile --roofline -- torchrun"), std::string::npos) << r.err;
  EXPECT_FALSE(rank_database(dir, "1").empty());
  const std::string log = read_file(dir.file("rocprofv3.argv"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;  // the trace run only
  // one rank under torchrun, or several ranks of another launcher: the counter pass runs
  TempDir one;
  auto single = run_cli(wrapper(one, {"--roofline"}), rank_env(one, "0", {{"TORCHELASTIC_RESTART_COUNT", "0"}, {"WORLD_SIZE", "1"}}));
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(single.err.find("skipped"), std::string::npos) << single.err;
  const std::string both = read_file(one.file("rocprofv3.argv"));
  EXPECT_GT(std::count(both.begin(), both.end(), '\n'), 1) << both;
}

TEST(RankWrapper, OnRocm6TheRankTracesToCsvAndItsCounterPassWritesJson) {
  // ROCm 6.x's rocprofv3 has no rocpd output: the rank's trace is imported from CSV, its counter pass from JSON
  // (rocprofv3_json_import), and both end up in the rank's database as on ROCm 7.x.
  TempDir dir;
  auto r = run_cli(wrapper(dir, {"--roofline"}), rank_env(dir, "5", {{"FAKE_ROCPROFV3_VERSION", "6.2"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string argv = read_file(dir.file("rocprofv3.argv"));
  EXPECT_NE(argv.find("--output-format csv"), std::string::npos) << argv;
  EXPECT_NE(argv.find("--output-format json"), std::string::npos) << argv;
  SqlFile sql(rank_database(dir, "5"));
  EXPECT_GT(sql.number("SELECT COUNT(*) FROM kernels"), 0);
  EXPECT_GT(sql.number("SELECT COUNT(*) FROM rocpd_pmc_event"), 0);
}

TEST(RankWrapper, WhatARankCannotDoExits17NamingTheOptionBeforeRunning) {
  struct Case {
    std::vector<std::string> flags;
    std::string named;
  };
  for (const Case& c : {Case{{"--runs", "3"}, "--runs 3"}, Case{{"--pc-sampling"}, "--pc-sampling"},
                        Case{{"--preset", "pc-sampling"}, "--preset pc-sampling"}, Case{{"--deep"}, "--deep"}}) {
    TempDir dir;
    auto r = run_cli(wrapper(dir, c.flags), rank_env(dir, "0"));
    EXPECT_EQ(r.exit_code, 17) << c.named << ": " << r.err;
    EXPECT_NE(r.err.find(c.named), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--rank-wrapper"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir.file("rocprofv3.argv"))) << c.named << ": nothing may run";
  }
  // --runs 1 is what a rank does anyway: accepted.
  TempDir dir;
  EXPECT_EQ(run_cli(wrapper(dir, {"--runs", "1"}), rank_env(dir, "0")).exit_code, 0);
}

TEST(RankWrapper, ThePlatformCheckAndTheCounterFileCheckRunFirst) {
  TempDir dir;
  // NVIDIA: the platform check of the launcher form (another NCCL profiler plugin chosen: no NCCL call records).
  auto r = run_cli({"profile", "--platform", "cuda", "--rank-wrapper", "--preset", "communication", "-o",
                    dir.file("out"), "--", "/bin/true"},
                   {{"NCCL_PROFILER_PLUGIN", "/opt/other/libnccl-profiler.so"}});
  EXPECT_EQ(r.exit_code, 17) << r.err;
  EXPECT_NE(r.err.find("NCCL_PROFILER_PLUGIN is set"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--preset communication cannot be honoured"), std::string::npos) << r.err;
  // An unsupported counter is named with its line before the rank runs anything.
  std::ofstream(dir.file("bad.txt")) << "pmc: NOT_A_COUNTER\n";
  r = run_cli(wrapper(dir, {"--counters", dir.file("bad.txt")}), rank_env(dir, "0"));
  EXPECT_EQ(r.exit_code, 17) << r.err;
  EXPECT_NE(r.err.find("NOT_A_COUNTER"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("rocprofv3.argv")));
}

TEST(RankWrapper, TraceAndCounterOptionsGivenAloneReachTheCollector) {
  struct Case {
    std::vector<std::string> flags;
    std::vector<std::string> in_argv;  // what rocprofv3 must have been asked for
  };
  for (const Case& c : {Case{{"--library-trace"}, {"--marker-trace"}},
                        Case{{"--scratch-memory-trace"}, {"--scratch-memory-trace"}},
                        // --kernel and --lenient steer the counter pass, so a rank running one honours them
                        Case{{"--roofline", "--kernel", "vec", "--lenient"}, {"-i ", "--kernel-include-regex vec"}},
                        Case{{"--timeout", "30", "--debug", "--quiet"}, {"--kernel-trace"}}}) {
    TempDir dir;
    auto r = run_cli(wrapper(dir, c.flags), rank_env(dir, "0"));
    ASSERT_EQ(r.exit_code, 0) << c.flags.front() << ": " << r.err;
    EXPECT_EQ(r.out, "") << "a rank prints nothing on stdout";
    const std::string argv = read_file(dir.file("rocprofv3.argv"));
    for (const auto& want : c.in_argv) EXPECT_NE(argv.find(want), std::string::npos) << c.flags.front() << ": " << argv;
  }
  // --sampling-interval implies the device monitor: its samples are in the rank's database.
  TempDir dir;
  ASSERT_EQ(run_cli(wrapper(dir, {"--sampling-interval", "5"}), rank_env(dir, "2")).exit_code, 0);
  EXPECT_GT(SqlFile(rank_database(dir, "2")).number("SELECT COUNT(*) FROM rocpd_sample"), 0);
}

TEST(RankWrapper, AnalysisAndReportOptionsExit17NamingThemBeforeRunning) {
  // Each of these only shapes the analysis or its report, which a rank does not write: silently dropping them
  // was the defect (issue 33). analyze DIR takes every one of them.
  const std::vector<std::vector<std::string>> cases = {
      {"--json"},         {"--top", "3"},          {"--what-if", "vec=0.5"},      {"--infer-dependencies"},
      {"--ceilings", "c.json"}, {"--memory-bandwidth-gbps", "100"}, {"--no-html"}, {"--range", "step"},
      {"--api-stats"},    {"--names", "full"},     {"--name-width", "20"},        {"--width", "100"},
      {"--per-dispatch"}, {"--kernel", "vec"},     {"--lenient"}};
  for (const auto& flags : cases) {
    TempDir dir;
    auto r = run_cli(wrapper(dir, flags), rank_env(dir, "0"));
    EXPECT_EQ(r.exit_code, 17) << flags.front() << ": " << r.err;
    EXPECT_NE(r.err.find(flags.front() + " cannot be honoured with --rank-wrapper"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("rocm-perf analyze " + dir.file("out")), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(dir.file("rocprofv3.argv"))) << flags.front() << ": nothing may run";
    EXPECT_FALSE(fs::exists(dir.file("out/ranks"))) << flags.front();
  }
  // Several at once are named together; the launcher form accepts the same options (tests/test_cli_presets.cpp).
  TempDir dir;
  auto r = run_cli(wrapper(dir, {"--json", "--top", "3"}), rank_env(dir, "0"));
  EXPECT_EQ(r.exit_code, 17);
  EXPECT_NE(r.err.find("--json, --top cannot be honoured"), std::string::npos) << r.err;
  // A usage error of the launcher form is one in a rank too (it was not checked there before).
  r = run_cli(wrapper(dir, {"--counter-launches", "2"}), rank_env(dir, "0"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--counter-launches"), std::string::npos) << r.err;
}
