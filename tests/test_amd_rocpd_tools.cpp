// AMD's own rocpd tooling on databases rocm-perf writes (tests/amd_rocpd/README.md).
//
// AmdRocpdSql: AMD's rocpd_tables.sql and view files (vendored, tests/amd_rocpd/sql/) against our databases:
// same columns and foreign keys, AMD's views read in full and keep every row, and per kernel the counts and
// durations of AMD's `kernels` / `top_kernels` views equal `rocm-perf analyze --json`. Always runs.
// AmdRocpdPython: AMD's `rocpd` Python package itself (`rocpd summary`, `rocpd query`, time window) from a
// rocprofiler-sdk source tree named by RPL_ROCPROFILER_SDK_SRC; skips visibly without it or without pandas.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "testing/cli.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace {

using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::TempDir;

const std::string kSource = RPL_SOURCE_DIR;
constexpr int kSkipped = 77;

struct DriverResult {
  int exit_code = -1;
  std::string out, err;
  nlohmann::json report;
};

// `rocm-perf analyze --json` of the databases, then the driver on the same databases.
DriverResult check_with_amd(const std::vector<std::string>& dbs, const TempDir& dir, const std::string& amd_source = "") {
  std::vector<std::string> analyze = {"analyze", "--json", "--top", "100000", "--no-html", "-o", dir.file("analyze")};
  analyze.insert(analyze.end(), dbs.begin(), dbs.end());
  auto a = run_cli(analyze);
  EXPECT_EQ(a.exit_code, 0) << a.err;
  { std::ofstream(dir.file("analyze.json")) << a.out; }

  rpl::ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", kSource + "/tests/amd_rocpd/check_amd_rocpd.py", "--analyze-json",
               dir.file("analyze.json"), "--work-dir", dir.file("work"), "--report", dir.file("report.json")};
  if (!amd_source.empty()) {
    spec.argv.push_back("--amd-source");
    spec.argv.push_back(amd_source);
  }
  spec.argv.insert(spec.argv.end(), dbs.begin(), dbs.end());
  spec.stdout_file = dir.file("driver.out");
  spec.stderr_file = dir.file("driver.err");
  const auto r = rpl::run_process(spec);
  DriverResult out;
  out.exit_code = r.exit_code;
  out.out = read_file(dir.file("driver.out"));
  out.err = read_file(dir.file("driver.err"));
  const auto report = read_file(dir.file("report.json"));
  if (!report.empty()) out.report = nlohmann::json::parse(report);
  return out;
}

std::vector<std::string> example_traces() {
  return {kSource + "/examples/traces/multistream-h100.db", kSource + "/examples/traces/multistream-h100-roofline.db",
          kSource + "/examples/traces/generated-4streams.db"};
}

std::pair<std::string, std::string> path_with_fake_rocprofv3() {
  const char* path = std::getenv("PATH");
  return {"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")};
}

// The databases of `rocm-perf profile --roofline` on AMD (the stand-in rocprofv3 writes the trace of two
// processes; rocm-perf appends the pmc passes' counter values to them).
std::vector<std::string> rocprofv3_path_databases(const TempDir& dir) {
  const auto out = dir.file("profile");
  auto r = run_cli({"profile", "--roofline", "--runs", "1", "-o", out, "--", "/bin/true"},
                   {path_with_fake_rocprofv3(), {"FAKE_ROCPROFV3_ARCH", "gfx942"}, {"FAKE_ROCPROFV3_PROCESSES", "2"},
                    {"FAKE_ROCPROFV3_KERNELS", "gemm(float*):4:50000;softmax(float*):2:10000"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto profile = nlohmann::json::parse(read_file(out + "/profile.json"));
  return profile["runs"]["per_run"][0]["databases"].get<std::vector<std::string>>();
}

const char* amd_source() {
  const char* s = std::getenv("RPL_ROCPROFILER_SDK_SRC");
  return s && *s ? s : nullptr;
}

}  // namespace

TEST(AmdRocpdSql, ExampleTracesMatchAmdSchemaAndViews) {
  for (const auto& db : example_traces()) {
    TempDir dir;
    const auto r = check_with_amd({db}, dir);
    EXPECT_EQ(r.exit_code, 0) << db << "\n" << r.out << r.err;
    // AMD's joined views returned our rows (the driver compared them; here: they were not empty).
    EXPECT_GT(r.report["databases"][db]["view_rows"]["kernels"].get<int>(), 0) << db;
    EXPECT_GT(r.report["databases"][db]["view_rows"]["regions"].get<int>(), 0) << db;
    EXPECT_GT(r.report["databases"][db]["view_rows"]["memory_copies"].get<int>(), 0) << db;
  }
}

TEST(AmdRocpdSql, CudaPathCountersReadThroughAmdCountersCollection) {
  // multistream-h100-roofline.db: our CUPTI collector's trace of an H100 run with ncu counters appended.
  TempDir dir;
  const auto db = kSource + "/examples/traces/multistream-h100-roofline.db";
  const auto r = check_with_amd({db}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto& entry = r.report["databases"][db];
  EXPECT_EQ(entry["view_rows"]["counters_collection"], 585);
  EXPECT_FALSE(entry["counters"].empty());
}

TEST(AmdRocpdSql, RocprofV3PathDatabasesWithAppendedCounters) {
  TempDir dir;
  const auto dbs = rocprofv3_path_databases(dir);
  ASSERT_EQ(dbs.size(), 2u);
  const auto r = check_with_amd(dbs, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Every (dispatch, counter) value rocm-perf stored is 1000 (the stand-in's two dimension rows of 500, summed
  // by rocm-perf); AMD's counters_collection sums per dispatch and counter, so each kernel/counter pair gives
  // 1000 per dispatch: gemm 4 dispatches, softmax 2, in each of the two processes.
  for (const auto& db : dbs) {
    const auto& counters = r.report["databases"][db]["counters"];
    ASSERT_FALSE(counters.empty()) << db;
    for (const auto& [key, value] : counters.items()) {
      const int dispatches = key.rfind("gemm", 0) == 0 ? 4 : 2;
      EXPECT_EQ(value[0], dispatches) << key;
      EXPECT_DOUBLE_EQ(value[1].get<double>(), 1000.0 * dispatches) << key;
    }
  }
}

TEST(AmdRocpdSql, ADispatchAmdsViewsWouldDropIsCaught) {
  // A dispatch whose queue row is missing vanishes from AMD's `kernels` view (INNER JOIN on the queue's
  // process); the driver must say so, so that a writer regression cannot pass.
  TempDir dir;
  const auto db = dir.file("broken.db");
  std::filesystem::copy_file(kSource + "/examples/traces/multistream-h100.db", db);
  rpl::test::SqlFile(db).exec(
      "UPDATE rocpd_kernel_dispatch_01a20195_0477_74eb_a7da_82b7d808e4e7 SET queue_id = 999 WHERE id = 1");
  const auto r = check_with_amd({db}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("AMD's kernels view keeps every rocpd_kernel_dispatch row (14 of 15)"), std::string::npos) << r.err;
}

TEST(AmdRocpdPython, SummaryQueryAndTimeWindowOnOurDatabases) {
  if (!amd_source())
    GTEST_SKIP() << "RPL_ROCPROFILER_SDK_SRC is not set: AMD's rocpd Python package is not vendored; point it at a "
                    "rocprofiler-sdk source tree (tests/amd_rocpd/README.md) to run AMD's rocpd summary/query";
  TempDir profile_dir;
  std::vector<std::vector<std::string>> sets;
  for (const auto& db : example_traces()) sets.push_back({db});
  sets.push_back(rocprofv3_path_databases(profile_dir));  // two processes merged by AMD's importer
  for (const auto& dbs : sets) {
    TempDir dir;
    const auto r = check_with_amd(dbs, dir, amd_source());
    if (r.exit_code == kSkipped) GTEST_SKIP() << r.out;
    EXPECT_EQ(r.exit_code, 0) << dbs[0] << "\n" << r.out << r.err;
    EXPECT_FALSE(r.report["amd_python"]["summary_kernels"].empty()) << dbs[0];
    EXPECT_EQ(r.report["amd_python"]["summary_processes"].size(), dbs.size()) << dbs[0];
    for (const auto& [file, same] : r.report["vendored_sql_matches_source"].items())
      EXPECT_TRUE(same.get<bool>()) << "tests/amd_rocpd/sql/" << file << " differs from the source tree's";
  }
}
