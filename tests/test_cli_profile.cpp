// `rocm-perf profile`, end to end through the CLI: timing-only mode (any machine), and the ROCm path with
// the stand-in rocprofv3 test double (tests/doubles/fake_rocprofv3.cpp) on PATH.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::TempDir;
using rpl::test::validate_against_schema;

namespace {

// PATH with the rocprofv3 test double first.
std::pair<std::string, std::string> path_with_double() {
  const char* path = std::getenv("PATH");
  return {"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")};
}

nlohmann::json load(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

}  // namespace

TEST(ProfileTimingOnly, RunsTheApplicationNTimesAndWritesAValidProfile) {
  TempDir dir;
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "3", "-o", dir.file("out"), "--", "/bin/sh", "-c",
                    "echo hello; exit 0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto profile = dir.file("out/profile.json");
  EXPECT_EQ(validate_against_schema("profile", profile), "");
  auto doc = load(profile);
  EXPECT_EQ(doc["mode"], "timing-only");
  EXPECT_EQ(doc["runs"]["count"], 3);
  EXPECT_EQ(doc["runs"]["per_run"].size(), 3u);
  EXPECT_GT(doc["runtime_ms"].get<double>(), 0.0);
  // The application's stdout is kept per run, not mixed into ours.
  EXPECT_EQ(read_file(dir.file("out/runs/run-2/app.stdout")), "hello\n");
  EXPECT_EQ(r.out.find("hello"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.file("out/dag.json")));  // no trace, no DAG
}

TEST(ProfileTimingOnly, QuietPrintsOnlyTheRuntime) {
  TempDir dir;
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "2", "--quiet", "-o", dir.path(), "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  double ms = std::stod(r.out);
  EXPECT_GT(ms, 0.0);
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);  // exactly one line
}

TEST(ProfileTimingOnly, JsonPrintsOnlyTheCombinedDocument) {
  TempDir dir;
  auto r = run_cli({"profile", "--no-rocprof", "--runs", "2", "--json", "-o", dir.file("o"), "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);  // throws if anything but JSON is on stdout
  EXPECT_TRUE(doc["dag"].is_null());
  std::string file = dir.file("combined.json");
  std::FILE* f = std::fopen(file.c_str(), "w");
  std::fputs(r.out.c_str(), f);
  std::fclose(f);
  EXPECT_EQ(validate_against_schema("analyze-output", file), "");
}

TEST(ProfileTimingOnly, FailingApplicationIsAClearErrorNotAnEmptyProfile) {
  TempDir dir;
  auto r = run_cli({"profile", "--no-rocprof", "-o", dir.path(), "--", "/bin/sh", "-c", "echo boom >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 9);
  EXPECT_NE(r.err.find("exited with status 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("boom"), std::string::npos) << r.err;  // its stderr is shown
  EXPECT_FALSE(fs::exists(dir.file("profile.json")));
}

TEST(ProfileTimingOnly, MissingApplicationIsAClearError) {
  TempDir dir;
  auto r = run_cli({"profile", "--no-rocprof", "-o", dir.path(), "--", "/no/such/app"});
  EXPECT_EQ(r.exit_code, 9);
  EXPECT_NE(r.err.find("/no/such/app"), std::string::npos) << r.err;
}

TEST(ProfileTimingOnly, CrashingApplicationReportsTheSignal) {
  TempDir dir;
  auto r = run_cli({"profile", "--no-rocprof", "-o", dir.path(), "--", "/bin/sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.exit_code, 9);
  EXPECT_NE(r.err.find("signal 11"), std::string::npos) << r.err;
}

TEST(ProfileUsage, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(run_cli({"profile"}).exit_code, 2);
  EXPECT_EQ(run_cli({"profile", "--runs", "0", "--", "/bin/true"}).exit_code, 2);
  EXPECT_EQ(run_cli({"profile", "--platform", "metal", "--", "/bin/true"}).exit_code, 2);
  EXPECT_EQ(run_cli({"profile", "--json", "--quiet", "--", "/bin/true"}).exit_code, 2);
}

TEST(ProfileRocm, UsesRocprofv3AndAnalysesEveryRun) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "--runs", "3", "-o", dir.file("out"), "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_KERNELS", "gemm:4:50000;softmax(float*):2:10000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"profile", "dag", "analysis"})
    EXPECT_EQ(validate_against_schema(f, dir.file(std::string("out/") + f + ".json")), "") << f;
  auto doc = load(dir.file("out/profile.json"));
  EXPECT_EQ(doc["mode"], "trace");
  EXPECT_EQ(doc["runs"]["platform"], "rocm");
  EXPECT_EQ(doc["runs"]["collector"], "rocprofv3");
  EXPECT_EQ(doc["runs"]["per_run"].size(), 3u);
  // 4 x 50 us + 2 x 10 us = 220 us per run, identical in every run: CV 0.
  EXPECT_NEAR(doc["runtime_ms"].get<double>(), 0.220, 1e-9);
  EXPECT_EQ(doc["runs"]["runtime"]["cv"], 0.0);
  ASSERT_EQ(doc["kernels"].size(), 2u);
  EXPECT_EQ(doc["kernels"][0]["name"], "gemm");
  EXPECT_EQ(doc["kernels"][0]["durations"]["count"], 4);
  EXPECT_EQ(doc["kernels"][1]["durations"]["count"], 2);
  for (int run = 1; run <= 3; ++run)
    EXPECT_EQ(doc["runs"]["per_run"][run - 1]["databases"].size(), 1u);
}

TEST(ProfileRocm, KernelFilterLimitsTheReport) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "--runs", "1", "--kernel", "^soft", "--quiet", "-o", dir.path(),
                    "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_KERNELS", "gemm:4:50000;softmax(float*):2:10000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(std::stod(r.out), 0.020, 1e-9);  // only softmax: 2 x 10 us
}

TEST(ProfileRocm, ChildProcessesGiveOneDatabaseEach) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "--runs", "1", "-o", dir.path(), "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_PROCESSES", "2"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = load(dir.file("profile.json"));
  EXPECT_EQ(doc["runs"]["per_run"][0]["databases"].size(), 2u);
  EXPECT_EQ(doc["processes"].size(), 2u);
  EXPECT_EQ(doc["kernels"][0]["durations"]["count"], 6);  // 3 per process
}

TEST(ProfileRocm, ProfilerFailureIsExit8WithItsLog) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "-o", dir.path(), "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_MODE", "fail"}});
  EXPECT_EQ(r.exit_code, 8);
  EXPECT_NE(r.err.find("simulated profiler failure"), std::string::npos) << r.err;
}

TEST(ProfileRocm, NoDatabaseIsExit8) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "-o", dir.path(), "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_MODE", "no-output"}});
  EXPECT_EQ(r.exit_code, 8);
  EXPECT_NE(r.err.find("no rocpd database"), std::string::npos) << r.err;
}

TEST(ProfileRocm, FailingApplicationUnderTheProfilerIsExit9) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "-o", dir.path(), "--", "/bin/sh", "-c", "exit 4"},
                   {path_with_double(), {"FAKE_ROCPROFV3_MODE", "crash-app-db"}});
  EXPECT_EQ(r.exit_code, 9);
  EXPECT_NE(r.err.find("exited with status 4"), std::string::npos) << r.err;
}

TEST(ProfileRocm, MissingRocprofv3IsExit8) {
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "-o", dir.path(), "--", "/bin/true"}, {{"PATH", "/nonexistent"}});
  EXPECT_EQ(r.exit_code, 8);
  EXPECT_NE(r.err.find("rocprofv3 was not found"), std::string::npos) << r.err;
}

// --rank-wrapper (issue 18): one traced run per rank, into DIR/ranks/rank-<R>/, no analysis; the
// application's exit status comes back; then `analyze DIR` sees every rank.
TEST(ProfileRankWrapper, EachRankWritesIntoItsOwnDirectory) {
  TempDir dir;
  for (const char* rank : {"0", "1"}) {
    auto r = run_cli({"profile", "--platform", "rocm", "--rank-wrapper", "-o", dir.path(), "--", "/bin/true"},
                     {path_with_double(), {"SLURM_PROCID", rank}, {"FAKE_ROCPROFV3_KERNELS", "gemm:4:50000"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");  // no analysis, nothing on stdout
    EXPECT_TRUE(std::filesystem::exists(dir.file(std::string("ranks/rank-") + rank)));
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("profile.json")));
  auto a = run_cli({"analyze", dir.path(), "-o", dir.file("analysis"), "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto doc = nlohmann::json::parse(a.out);
  EXPECT_EQ(doc["ranks"].size(), 2u);  // rocprofv3 records no rank: numbered, with a warning
  EXPECT_FALSE(doc["warnings"].empty());

  auto failing = run_cli({"profile", "--platform", "rocm", "--rank-wrapper", "-o", dir.path(), "--", "/bin/sh", "-c",
                          "exit 7"},
                         {path_with_double(), {"SLURM_PROCID", "2"}, {"FAKE_ROCPROFV3_KERNELS", "gemm:1:5000"}});
  // The stand-in writes nothing for a failing application: no database is an error naming its status.
  EXPECT_NE(failing.exit_code, 0);
  EXPECT_NE(failing.err.find("status 7"), std::string::npos) << failing.err;
}
