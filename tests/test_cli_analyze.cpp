// `rocm-perf analyze`, end to end through the CLI, on fixture databases (tests/testing/fixtures.hpp):
// outputs validated against their schemas, the output modes, what-if, and every bad input with its exit
// code and a message naming the file.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "store/rocpd_schema.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using namespace rpl::test;

namespace {

// Default fixture: 2 streams x 3 kernels (stream s lasts 20000 + 1000 s ns) plus one 30000 ns "consume"
// kernel: runtime = 3 x 21000 + 3 x 22000 + 30000 = 159000 ns = 0.159 ms.
constexpr double kFixtureRuntimeMs = 0.159;

std::string write_text(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

std::string dispatch_table(const std::string& db) {
  SqlFile sql(db);
  return sql.value("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_kernel_dispatch_%'");
}

}  // namespace

TEST(AnalyzeCli, WritesThreeSchemaValidOutputsAndASummary) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", db, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"profile", "dag", "analysis"})
    EXPECT_EQ(validate_against_schema(f, dir.file(std::string("out/") + f + ".json")), "") << f;
  EXPECT_NE(r.out.find("Top kernels"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Critical path"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("consume"), std::string::npos) << r.out;  // display name falls back to the mangled one

  auto profile = nlohmann::json::parse(read_file(dir.file("out/profile.json")));
  EXPECT_NEAR(profile["runtime_ms"].get<double>(), kFixtureRuntimeMs, 1e-12);
  EXPECT_EQ(profile["timing"]["dispatch_count"], 7);
  // The default window is the first to the last kernel: the fixture's copy before the first kernel and its
  // copy after the last are outside it.
  EXPECT_EQ(profile["timing"]["copy_count"], 0);
  EXPECT_EQ(profile["gpu"]["architecture"], "gfx942");
  auto dag = nlohmann::json::parse(read_file(dir.file("out/dag.json")));
  EXPECT_EQ(dag["node_count"], 7);
  EXPECT_EQ(dag["window"]["source"], "first_to_last_kernel");
  EXPECT_EQ(dag["window"]["dropped_copies"], 2);
  EXPECT_GE(dag["edge_counts"]["event_wait"].get<int>(), 1);  // the recorded hipStreamWaitEvent
  EXPECT_EQ(dag["edge_counts"]["inferred"], 0);               // nothing inferred by default
  // Per-node rows are opt-in (--slack-db), not in dag.json (schema 1.1).
  EXPECT_EQ(dag["schema_version"], "1.1");
  EXPECT_FALSE(dag.contains("nodes"));
}

TEST(AnalyzeCli, QuietPrintsOnlyTheRuntime) {
  TempDir dir;
  auto r = run_cli({"analyze", make_fixture_db(dir.path()), "--quiet", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0.159000\n");
  EXPECT_EQ(r.err, "");
}

TEST(AnalyzeCli, JsonPrintsOnlyTheCombinedDocument) {
  TempDir dir;
  auto r = run_cli({"analyze", make_fixture_db(dir.path()), "--json", "-o", dir.file("out"), "--what-if",
                    "^consume=0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string file = write_text(dir, "combined.json", r.out);
  EXPECT_EQ(validate_against_schema("analyze-output", file), "");
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["dag"]["what_if"].size(), 1u);
  const auto& w = doc["dag"]["what_if"][0];
  EXPECT_EQ(w["matched_dispatches"], 1);
  // consume ends the run and nothing waits on it but the host: halving its 30 us saves 15 us end to end.
  EXPECT_NEAR(w["delta_ns"].get<double>(), -15000.0, 1.0);
  EXPECT_EQ(doc["analysis"]["what_if"], doc["dag"]["what_if"]);
}

TEST(AnalyzeCli, SeveralDatabasesAreMergedByProcess) {
  TempDir dir;
  FixtureSpec a, b;
  a.file_name = "a.db";
  b.file_name = "b.db";
  b.guid = "0198a0b1-2c3d-7e4f-8a9b-000000000002";
  b.pid = 5000;
  auto r = run_cli({"analyze", make_fixture_db(dir.path(), a), make_fixture_db(dir.path(), b), "--quiet", "-o",
                    dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0.318000\n");  // both processes' kernel time
  auto profile = nlohmann::json::parse(read_file(dir.file("out/profile.json")));
  EXPECT_EQ(profile["processes"].size(), 2u);
}

TEST(AnalyzeCli, TopLimitsTheListing) {
  TempDir dir;
  auto r = run_cli({"analyze", make_fixture_db(dir.path()), "--top", "1", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 more (--top N"), std::string::npos) << r.out;
}

TEST(AnalyzeCli, VersionAndHelp) {
  auto v = run_cli({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("0.1.0"), std::string::npos);
  auto h = run_cli({"analyze", "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--what-if"), std::string::npos);
}

TEST(AnalyzeCliUsage, UsageErrorsExitWith2) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  EXPECT_EQ(run_cli({}).exit_code, 2);
  EXPECT_EQ(run_cli({"analyze"}).exit_code, 2);
  EXPECT_EQ(run_cli({"analyze", db, "--no-such-option"}).exit_code, 2);
  EXPECT_EQ(run_cli({"analyze", db, "--json", "--quiet"}).exit_code, 2);
  EXPECT_EQ(run_cli({"analyze", db, "--top", "0"}).exit_code, 2);
  auto bad = run_cli({"analyze", db, "--what-if", "gemm=fast", "-o", dir.file("out")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("gemm=fast"), std::string::npos) << bad.err;
  EXPECT_EQ(run_cli({"analyze", db, "--what-if", "(=0.5", "-o", dir.file("out")}).exit_code, 2);
}

TEST(AnalyzeCliBadInput, MissingFileIsExit3) {
  auto r = run_cli({"analyze", "/no/such/trace.db"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("/no/such/trace.db"), std::string::npos) << r.err;
}

TEST(AnalyzeCliBadInput, NotSqliteIsExit4) {
  TempDir dir;
  auto path = write_text(dir, "notes.db", "this is not a database\n");
  auto r = run_cli({"analyze", path, "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
}

TEST(AnalyzeCliBadInput, TruncatedDatabaseIsExit4) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  fs::resize_file(db, fs::file_size(db) / 2);
  auto r = run_cli({"analyze", db, "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
}

TEST(AnalyzeCliBadInput, SqliteWithoutRocpdTablesIsExit5) {
  TempDir dir;
  {
    SqlFile sql(dir.file("other.db"));
    sql.exec("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1)");
  }
  auto r = run_cli({"analyze", dir.file("other.db"), "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("other.db"), std::string::npos) << r.err;
}

TEST(AnalyzeCliBadInput, EmptyTraceIsExit6) {
  TempDir dir;
  FixtureSpec spec;
  spec.kernels_per_stream = 0;
  spec.copies = spec.event_sync = spec.gpu_barriers = spec.host_sync = spec.counters = false;
  auto r = run_cli({"analyze", make_fixture_db(dir.path(), spec), "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 6) << r.err;
}

TEST(AnalyzeCliBadInput, EndBeforeStartIsExit7UnlessLenient) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  {
    SqlFile sql(db);
    sql.exec("UPDATE " + dispatch_table(db) + " SET end = start - 5 WHERE dispatch_id = 2");
  }
  auto r = run_cli({"analyze", db, "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
  auto lenient = run_cli({"analyze", db, "--lenient", "--quiet", "-o", dir.file("out")});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("warning"), std::string::npos) << lenient.err;  // says what it dropped
}

TEST(AnalyzeCliBadInput, DuplicateIdsAreExit7) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  {
    SqlFile sql(db);
    sql.exec("UPDATE " + dispatch_table(db) + " SET dispatch_id = 1 WHERE dispatch_id = 2");
  }
  EXPECT_EQ(run_cli({"analyze", db, "-o", dir.file("out")}).exit_code, 7);
  // The same process twice is a duplicate too.
  std::string clean = make_fixture_db(dir.path(), FixtureSpec{.file_name = "clean.db"});
  EXPECT_EQ(run_cli({"analyze", clean, clean, "-o", dir.file("out")}).exit_code, 7);
}

TEST(AnalyzeCliBadInput, FailureLeavesEarlierOutputsAndTheInputUntouched) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  ASSERT_EQ(run_cli({"analyze", db, "-o", dir.file("out")}).exit_code, 0);
  std::string before = read_file(dir.file("out/profile.json"));
  std::string input_before = read_file(db);
  EXPECT_EQ(run_cli({"analyze", db, "/no/such.db", "-o", dir.file("out")}).exit_code, 3);
  EXPECT_EQ(read_file(dir.file("out/profile.json")), before);
  EXPECT_EQ(read_file(db), input_before);  // opened read-only
  for (const auto& e : fs::directory_iterator(dir.file("out")))
    EXPECT_EQ(e.path().string().find(".partial"), std::string::npos) << e.path();
}

TEST(AnalyzeCliBadInput, UnwritableOutputDirectoryIsExit10) {
  if (geteuid() == 0) GTEST_SKIP() << "root can write anywhere; permission test needs an ordinary user";
  TempDir dir;
  fs::create_directories(dir.file("ro"));
  chmod(dir.file("ro").c_str(), 0555);
  auto r = run_cli({"analyze", make_fixture_db(dir.path()), "-o", dir.file("ro/out")});
  EXPECT_EQ(r.exit_code, 10) << r.err;
}

TEST(AnalyzeCliBadInput, OutputPathThatIsAFileIsExit10) {
  TempDir dir;
  auto blocker = write_text(dir, "blocker", "x");
  auto r = run_cli({"analyze", make_fixture_db(dir.path()), "-o", blocker + "/out"});
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_NE(r.err.find("blocker"), std::string::npos) << r.err;
}
