// ROCm 6.x rocprofv3 JSON output into rocpd (issue 33; collectors/amd/rocprofv3_json_import.hpp): the fixture
// of tests/data/rocprofv3_json/ (the same run as the CSV fixture, written to rocprofiler-sdk's schema of its
// JSON output), several processes in one file, and the refusals. Unvalidated on AMD hardware.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::SqlFile;
using rpl::test::TempDir;
using rpl::test::validate_against_schema;

namespace {

const std::string kJsonFixture = std::string(RPL_SOURCE_DIR) + "/tests/data/rocprofv3_json/rocm-6.2";
const std::string kJsonFile = kJsonFixture + "/node1/4242_results.json";
const std::string kCsvFixture = std::string(RPL_SOURCE_DIR) + "/tests/data/rocprofv3_csv/rocm-6.2";

// name -> (dispatches, total ns) of `analyze DB --json`.
std::map<std::string, std::pair<int64_t, double>> kernel_totals_of(const std::string& db, const std::string& out) {
  auto r = run_cli({"analyze", db, "-o", out, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::pair<int64_t, double>> totals;
  if (r.exit_code != 0) return totals;
  const json doc = json::parse(r.out);  // named: a range-for over a temporary's member would dangle
  for (const auto& k : doc.at("profile").at("kernels"))
    totals[k.at("name").get<std::string>()] = {k.at("durations").at("count").get<int64_t>(),
                                               k.at("durations").at("total_ns").get<double>()};
  return totals;
}

json fixture() { return json::parse(read_file(kJsonFile)); }

std::string write_json(const TempDir& dir, const std::string& name, const json& doc) {
  fs::create_directories(fs::path(dir.file(name)).parent_path());
  std::ofstream(dir.file(name)) << doc.dump();
  return dir.file(name);
}

}  // namespace

TEST(Rocprofv3JsonImport, TheRocm62OutputImportsWithWhatTheCsvLacks) {
  TempDir dir;
  auto r = run_cli({"import", "rocprofv3-json", kJsonFixture, "-o", dir.file("db")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string db = dir.file("db/node1/4242_results.db");
  EXPECT_EQ(r.out, db + "\n");  // stdout: the databases written, nothing else
  // One counter record belongs to a dispatch the trace does not have: said, not imported.
  EXPECT_NE(r.err.find("1 counter records belong to dispatches the kernel trace does not have"), std::string::npos)
      << r.err;
  SqlFile sql(db);
  EXPECT_EQ(sql.value("SELECT pid FROM rocpd_info_process"), "4242");
  EXPECT_EQ(sql.value("SELECT name FROM rocpd_info_agent WHERE type = 'GPU'"), "gfx942");
  EXPECT_EQ(sql.value("SELECT json_extract(extdata, '$.cu_count') FROM rocpd_info_agent WHERE type = 'GPU'"), "304");
  EXPECT_EQ(sql.number("SELECT COUNT(*) FROM kernels"), 3);
  // The kernel's mangled and demangled names, and its registers from the counter record (6.2's symbols have none).
  EXPECT_EQ(sql.value("SELECT kernel_name || '|' || display_name || '|' || arch_vgpr_count || '|' || sgpr_count "
                      "FROM rocpd_info_kernel_symbol WHERE id = 7"),
            "_Z4gemmPfPKfi.kd|gemm(float*, float const*, int)|32|24");
  // The copy's byte count and direction (operation 2 of MEMORY_COPY in strings.buffer_records).
  EXPECT_EQ(sql.value("SELECT name || '|' || size FROM memory_copies"), "MEMORY_COPY_HOST_TO_DEVICE|4194304");
  // API names by (kind, operation) from strings.buffer_records; the ROCTx range by its message.
  EXPECT_EQ(sql.number("SELECT COUNT(*) FROM regions WHERE name = 'hipLaunchKernel' AND category = 'HIP_RUNTIME_API'"), 3);
  EXPECT_EQ(sql.number("SELECT COUNT(*) FROM regions WHERE name = 'hipMemcpy'"), 1);
  EXPECT_EQ(sql.value("SELECT category FROM regions WHERE name = 'step'"), "MARKER_CORE_API");
  EXPECT_EQ(sql.value("SELECT type || '|' || level || '|' || json_extract(extdata, '$.flags') FROM rocpd_memory_allocate"),
            "ALLOC|SCRATCH|1");
  // Counter values: two instances of SQ_WAVES summed by the view, as rocprofv3's own databases.
  EXPECT_EQ(sql.number("SELECT value FROM counters_collection WHERE counter_name = 'SQ_WAVES' AND dispatch_id = 1"), 2048);
  EXPECT_EQ(sql.number("SELECT value FROM counters_collection WHERE counter_name = 'TCC_HIT_sum'"), 100);
}

TEST(Rocprofv3JsonImport, TheSameRunAsTheCsvFixtureAnalysesTheSame) {
  TempDir dir;
  ASSERT_EQ(run_cli({"import", "rocprofv3-json", kJsonFile, "-o", dir.file("json")}).exit_code, 0);
  ASSERT_EQ(run_cli({"import", "rocprofv3-csv", kCsvFixture, "-o", dir.file("csv")}).exit_code, 0);
  const auto from_json = kernel_totals_of(dir.file("json/4242_results.db"), dir.file("a1"));
  ASSERT_EQ(from_json.size(), 2u);
  EXPECT_EQ(from_json.at("gemm(float*, float const*, int)"), std::make_pair(int64_t{2}, 80000.0));
  EXPECT_EQ(from_json.at("relu"), std::make_pair(int64_t{1}, 10000.0));
  EXPECT_EQ(from_json, kernel_totals_of(dir.file("csv/node1/4242_results.db"), dir.file("a2")));
  EXPECT_EQ(validate_against_schema("analysis", dir.file("a1/analysis.json")), "");
}

TEST(Rocprofv3JsonImport, EveryProcessOfAFileGetsItsDatabase) {
  TempDir dir;
  json doc = fixture();
  json second = doc["rocprofiler-sdk-tool"][0];
  second["metadata"]["pid"] = 4343;
  doc["rocprofiler-sdk-tool"].push_back(second);
  const std::string file = write_json(dir, "run/results.json", doc);
  auto r = run_cli({"import", "rocprofv3-json", dir.file("run")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir.file("run/4242_results.db") + "\n" + dir.file("run/4343_results.db") + "\n");
  EXPECT_EQ(SqlFile(dir.file("run/4343_results.db")).value("SELECT pid FROM rocpd_info_process"), "4343");
}

TEST(Rocprofv3JsonImport, BadInputIsNamedAndNothingIsLeftBehind) {
  struct Case {
    std::string name;
    json doc;
    int exit_code;
    std::string said;
  };
  json unknown_kernel = fixture();
  unknown_kernel["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][0]["dispatch_info"]["kernel_id"] = 8;
  json text_time = fixture();
  text_time["rocprofiler-sdk-tool"][0]["buffer_records"]["hip_api"][1]["start_timestamp"] = "soon";
  json twice = fixture();
  twice["rocprofiler-sdk-tool"][0]["buffer_records"]["kernel_dispatch"][1]["dispatch_info"]["dispatch_id"] = 1;
  json not_object = fixture();
  not_object["rocprofiler-sdk-tool"][0]["callback_records"]["counter_collection"][0] = 3;
  json empty = fixture();
  for (const char* key : {"kernel_dispatch", "hip_api", "marker_api", "memory_copy"})
    empty["rocprofiler-sdk-tool"][0]["buffer_records"][key] = json::array();
  for (const Case& c : {Case{"unknown_kernel", unknown_kernel, 4, "runs kernel 8, which kernel_symbols does not define"},
                        Case{"text_time", text_time, 4, "field 'start_timestamp' is \"soon\", not an integer"},
                        Case{"twice", twice, 4, "dispatch 1 is recorded twice"},
                        Case{"not_object", not_object, 4, "(process 1)"},
                        Case{"other_json", json{{"traceEvents", json::array()}}, 4, "no \"rocprofiler-sdk-tool\" entry"},
                        Case{"empty", empty, 6, "no kernel, copy or API record"}}) {
    TempDir dir;
    const std::string file = write_json(dir, c.name + "/9_results.json", c.doc);
    auto r = run_cli({"import", "rocprofv3-json", file});
    EXPECT_EQ(r.exit_code, c.exit_code) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.said), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(dir.file(c.name + "/9_results.db"))) << c.name;
    EXPECT_FALSE(fs::exists(dir.file(c.name + "/9_results.db.partial"))) << c.name;
  }
  TempDir dir;
  std::ofstream(dir.file("cut_results.json")) << read_file(kJsonFile).substr(0, 500);
  auto r = run_cli({"import", "rocprofv3-json", dir.file("cut_results.json")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("cut_results.json: not JSON"), std::string::npos) << r.err;
  fs::create_directories(dir.file("none"));
  r = run_cli({"import", "rocprofv3-json", dir.file("none")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no rocprofv3 JSON output"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli({"import", "rocprofv3-json", dir.file("absent")}).exit_code, 3);
}

TEST(Rocprofv3JsonImport, AnalyzeOnRocm6OutputSaysHowToConvertIt) {
  // Given as databases, rocprofv3's ROCm 6.x files (or their folders) were "not an SQLite database" or "no
  // rocpd database" without a word about what to do.
  struct Case {
    std::string input;
    int exit_code;
    std::string said;
  };
  for (const Case& c : {Case{kJsonFile, 4, "it is rocprofv3's JSON output (ROCm 6.x); convert it with rocm-perf import "
                                           "rocprofv3-json FILE"},
                        Case{kCsvFixture + "/node1/4242_kernel_trace.csv", 4,
                             "it is rocprofv3's CSV output (ROCm 6.x); convert its folder with rocm-perf import "
                             "rocprofv3-csv DIR"},
                        Case{kCsvFixture + "/node1/4242_hip_api_trace.csv", 4, "rocm-perf import rocprofv3-csv"},
                        Case{kJsonFixture, 3, "convert it with rocm-perf import rocprofv3-json " + kJsonFixture},
                        Case{kCsvFixture, 3, "convert it with rocm-perf import rocprofv3-csv " + kCsvFixture}}) {
    TempDir dir;
    auto r = run_cli({"analyze", c.input, "-o", dir.file("out")});
    EXPECT_EQ(r.exit_code, c.exit_code) << c.input << ": " << r.err;
    EXPECT_NE(r.err.find(c.said), std::string::npos) << r.err;
  }
  // Any other file keeps the plain message.
  TempDir dir;
  std::ofstream(dir.file("notes.txt")) << "\"Kindly\", not a trace, but long enough to fill an SQLite header's hundred "
                                          "bytes of magic, page size and counters, so the reader looks at it\n";
  auto r = run_cli({"analyze", dir.file("notes.txt"), "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("not an SQLite database (bad file header)\n"), std::string::npos) << r.err;
}
