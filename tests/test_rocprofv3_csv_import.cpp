// ROCm 6.x rocprofv3 CSV output into rocpd (issue 33; collectors/amd/rocprofv3_csv_import.hpp): the ROCm 6.2
// layout (committed fixture, tests/data/rocprofv3_csv/), the 6.3 layout through `profile` with the rocprofv3
// stand-in in ROCm 6.x mode (version detected from its --help), the 6.4+/7.x layout through a round trip
// with `export csv`, the refusals, and ROCm 6.x's counter passes (JSON output, imported). Unvalidated on AMD
// hardware.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::SqlFile;
using rpl::test::TempDir;
using rpl::test::validate_against_schema;

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

const std::string kFixture = std::string(RPL_SOURCE_DIR) + "/tests/data/rocprofv3_csv/rocm-6.2";

Env rocm6(const TempDir& dir, const std::string& version, Env extra = {}) {
  const char* path = std::getenv("PATH");
  extra.push_back({"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")});
  extra.push_back({"FAKE_ROCPROFV3_ARGV_LOG", dir.file("rocprofv3.argv")});
  extra.push_back({"FAKE_ROCPROFV3_VERSION", version});
  return extra;
}

nlohmann::json analyze(const std::string& db, const std::string& out) {
  auto r = run_cli({"analyze", db, "-o", out, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// name -> (dispatches, total ns) from an analysis document's kernel statistics.
std::map<std::string, std::pair<int64_t, double>> kernel_totals(const nlohmann::json& doc) {
  std::map<std::string, std::pair<int64_t, double>> out;
  for (const auto& k : doc.at("profile").at("kernels"))
    out[k.at("name").get<std::string>()] = {k.at("durations").at("count").get<int64_t>(),
                                            k.at("durations").at("total_ns").get<double>()};
  return out;
}

}  // namespace

TEST(Rocprofv3CsvImport, TheRocm62LayoutImportsAndAnalyses) {
  TempDir dir;
  auto r = run_cli({"import", "rocprofv3-csv", kFixture, "-o", dir.file("db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string db = dir.file("db/node1/4242_results.db");
  EXPECT_EQ(r.out, db + "\n");  // stdout: the databases written, nothing else
  {
    SqlFile sql(db);
    EXPECT_EQ(sql.value("SELECT pid FROM rocpd_info_process"), "4242");
    EXPECT_EQ(sql.value("SELECT name FROM rocpd_info_agent WHERE type = 'GPU'"), "gfx942");
    EXPECT_EQ(sql.number("SELECT COUNT(*) FROM kernels"), 3);
    EXPECT_EQ(sql.number("SELECT COUNT(*) FROM memory_copies"), 1);
    EXPECT_EQ(sql.number("SELECT COUNT(*) FROM regions"), 4);
  }
  const auto doc = analyze(db, dir.file("analysis"));
  EXPECT_EQ(validate_against_schema("analysis", dir.file("analysis/analysis.json")), "");
  const auto k = kernel_totals(doc);
  ASSERT_EQ(k.size(), 2u) << doc["profile"]["kernels"].dump();
  EXPECT_EQ(k.at("gemm(float*, float const*, int)"), std::make_pair(int64_t{2}, 80000.0));
  EXPECT_EQ(k.at("relu"), std::make_pair(int64_t{1}, 10000.0));
}

TEST(Rocprofv3CsvImport, ProfileOnRocm6TracesToCsvAndImportsIt) {
  for (const char* version : {"6.2", "6.3"}) {
    TempDir dir;
    auto r = run_cli({"profile", "--platform", "rocm", "--runs", "2", "-o", dir.file("out"), "--", "/bin/true"},
                     rocm6(dir, version, {{"FAKE_ROCPROFV3_KERNELS", "gemm:4:50000;softmax(float*):2:10000"}}));
    ASSERT_EQ(r.exit_code, 0) << version << ": " << r.err;
    // The version seen in --help: csv asked for, never rocpd (which ROCm 6.x refuses).
    const std::string argv = read_file(dir.file("rocprofv3.argv"));
    EXPECT_NE(argv.find("--output-format csv"), std::string::npos) << argv;
    EXPECT_EQ(argv.find("--output-format rocpd"), std::string::npos) << argv;
    EXPECT_NE(r.err.find("ROCm 6.x"), std::string::npos) << r.err;
    EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
    const auto doc = nlohmann::json::parse(read_file(dir.file("out/profile.json")));
    EXPECT_NEAR(doc["runtime_ms"].get<double>(), 0.220, 1e-9) << version;
    ASSERT_EQ(doc["kernels"].size(), 2u);
    EXPECT_EQ(doc["kernels"][0]["name"], "gemm");
    EXPECT_EQ(doc["kernels"][0]["durations"]["count"], 4);
  }
}

TEST(Rocprofv3CsvImport, TheLaterLayoutRoundTripsThroughExportCsv) {
  // `export csv` writes ROCm 6.4+ / 7.x's columns ("Agent N", Stream_Id, LDS_Block_Size, VGPR_Count, ...):
  // imported back, the kernels' statistics are those of the original database.
  TempDir dir;
  const std::string original = rpl::test::make_fixture_db(dir.path());
  auto e = run_cli({"export", "csv", original, "-o", dir.file("csv"), "--prefix", "777"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  auto r = run_cli({"import", "rocprofv3-csv", dir.file("csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir.file("csv/777_results.db") + "\n");
  EXPECT_EQ(kernel_totals(analyze(dir.file("csv/777_results.db"), dir.file("a2"))),
            kernel_totals(analyze(original, dir.file("a1"))));
}

TEST(Rocprofv3CsvImport, BadInputIsNamedAndNothingIsLeftBehind) {
  TempDir dir;
  fs::create_directories(dir.file("bad"));
  std::ofstream(dir.file("bad/5_kernel_trace.csv"))
      << "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
         "\"End_Timestamp\"\n\"KERNEL_DISPATCH\",1,1,1,\"k\",1,soon,20\n";
  auto r = run_cli({"import", "rocprofv3-csv", dir.file("bad")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("5_kernel_trace.csv:2: column 'Start_Timestamp' is 'soon'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("bad/5_results.db")));

  std::ofstream(dir.file("bad/5_kernel_trace.csv")) << "\"Kind\",\"Name\"\n\"KERNEL_DISPATCH\",\"k\"\n";
  r = run_cli({"import", "rocprofv3-csv", dir.file("bad")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("no column 'Queue_Id'"), std::string::npos) << r.err;

  fs::create_directories(dir.file("empty"));
  r = run_cli({"import", "rocprofv3-csv", dir.file("empty")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no rocprofv3 CSV file"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli({"import", "rocprofv3-csv", dir.file("absent")}).exit_code, 3);
}

TEST(Rocprofv3CsvImport, CounterPassesOnRocm6WriteJsonAndGiveTheSameRooflineAsRocm7) {
  // ROCm 6.x: the trace goes to CSV, the counter passes to JSON (rocprofv3_json_import), each imported into rocpd;
  // the stand-in writes the same dispatches and values in both versions, so the roofline must be the same.
  std::map<std::string, nlohmann::json> point;
  for (const char* version : {"7.0", "6.2"}) {
    TempDir dir;
    auto r = run_cli({"profile", "--platform", "rocm", "--runs", "1", "--roofline", "-o", dir.file("out"), "--",
                      "/bin/true"},
                     rocm6(dir, version));
    ASSERT_EQ(r.exit_code, 0) << version << ": " << r.err;
    const std::string argv = read_file(dir.file("rocprofv3.argv"));
    const bool rocm6 = std::string(version) == "6.2";
    EXPECT_NE(argv.find(rocm6 ? "-i " : "--output-format rocpd"), std::string::npos) << argv;
    if (rocm6) EXPECT_NE(argv.find("--kernel-trace --output-format json -d"), std::string::npos) << argv;
    EXPECT_EQ(validate_against_schema("roofline", dir.file("out/roofline.json")), "");
    const auto doc = nlohmann::json::parse(read_file(dir.file("out/roofline.json")));
    ASSERT_EQ(doc["status"], "ok") << version;
    point[version] = doc["kernels"][0]["point"];
    EXPECT_EQ(point[version]["status"], "ok") << version;
  }
  EXPECT_GT(point["6.2"]["total_gflops_per_s"].get<double>(), 0);
  EXPECT_EQ(point["6.2"], point["7.0"]);
  // --deep: its counters (hit rates, utilisations) are measured; the thread trace is ROCm 7.x only, said in a
  // warning, and nothing else is lost.
  TempDir dir;
  auto r = run_cli({"profile", "--platform", "rocm", "--runs", "1", "--deep", "-o", dir.file("out"), "--", "/bin/true"},
                   rocm6(dir, "6.2", {{"FAKE_ROCPROFV3_ARCH", "gfx942"}}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no thread trace: the thread trace (--deep) needs rocprofv3's rocpd output"), std::string::npos)
      << r.err;
  const auto deep = nlohmann::json::parse(read_file(dir.file("out/roofline.json")))["kernels"][0]["deep_analysis"];
  EXPECT_EQ(deep["source"], "counters");
  EXPECT_EQ(deep["l2_hit_rate"], 0.5);  // TCC_HIT / (TCC_HIT + TCC_MISS), the stand-in's 1000 each
}
