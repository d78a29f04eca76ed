// `rocm-perf export perfetto --format pftrace` loaded into Perfetto's own trace processor: trace_processor.wasm
// of the pinned Perfetto UI build (scripts/fetch_perfetto_ui.sh: from the npm registry, sha512-checked, cached in the build
// tree), run in node by bench/perfetto/tp_load.cjs through the RPC the UI's engine worker uses. Then
// bench/perfetto/check_trace_processor.py compares what it imported (slices per kernel name with their summed
// durations, copies, single dispatches by id, process and stream tracks, flows, critical path, the stats
// table's errors) with the rocpd database. Skips, saying why, only when node or the package cannot be had.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/process.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

using rpl::test::TempDir;

namespace {

using rpl::test::CliResult;

CliResult run(const std::vector<std::string>& argv, const TempDir& dir) {
  rpl::ProcessSpec spec;
  spec.argv = argv;
  spec.stdout_file = dir.file("run.out");
  spec.stderr_file = dir.file("run.err");
  spec.timeout_s = 120;
  rpl::ProcessResult r;
  try {
    r = rpl::run_process(spec);
  } catch (const std::exception& e) {  // not installed
    return {127, "", e.what()};
  }
  return {r.signal || r.timed_out ? 128 + r.signal : r.exit_code, rpl::test::read_file(dir.file("run.out")),
          rpl::test::read_file(dir.file("run.err"))};
}

const std::string kScripts = std::string(RPL_SOURCE_DIR) + "/bench/perfetto/";

class PerfettoTraceProcessor : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef RPL_GEN_ROCPD
    GTEST_SKIP() << "bench/gen_rocpd is not built (RPL_BUILD_BENCH=OFF)";
#else
    if (CliResult node = run({"node", "--version"}, dir_); node.exit_code != 0)
      GTEST_SKIP() << "node is not installed (apt-get install nodejs): Perfetto trace processor check skipped ("
                   << node.err << ")";
    CliResult fetch = run({std::string(RPL_SOURCE_DIR) + "/scripts/fetch_perfetto_ui.sh",
                     std::string(RPL_BUILD_DIR) + "/perfetto-ui"}, dir_);
    if (fetch.exit_code == 77) GTEST_SKIP() << "the Perfetto UI package cannot be had: " << fetch.err;
    ASSERT_EQ(fetch.exit_code, 0) << fetch.err;
    package_ = fetch.out.substr(0, fetch.out.find('\n'));
#endif
  }

  // A bench/gen_rocpd database (8 streams, event waits, host syncs, copies) and its pftrace export.
  std::pair<std::string, std::string> export_trace(const std::string& name, int dispatches, int seed) {
#ifdef RPL_GEN_ROCPD
    CliResult gen = run({RPL_GEN_ROCPD, "-n", std::to_string(dispatches), "-s", "8", "--event-every", "50",
                   "--sync-every", "5000", "--copy-every", "1000", "--seed", std::to_string(seed), "-o",
                   dir_.file(name)}, dir_);
    EXPECT_EQ(gen.exit_code, 0) << gen.err;
#endif
    std::string db = dir_.file(name + ".db"), trace = dir_.file(name + ".pftrace");
    rpl::test::CliResult r = rpl::test::run_cli({"export", "perfetto", db, "--format", "pftrace", "-o", trace, "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return {db, trace};
  }

  CliResult check(const std::string& db, const std::string& trace, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {"python3", kScripts + "check_trace_processor.py", db, trace, package_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv, dir_);
  }

  TempDir dir_;
  std::string package_;
};

// The flows the JSON export of the same database draws (its "s" events): the trace processor must import
// as many from the pftrace.
std::size_t json_export_flows(const std::string& db, const TempDir& dir) {
  std::string json = dir.file("flows.json");
  rpl::test::CliResult r = rpl::test::run_cli({"export", "perfetto", db, "-o", json, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::size_t flows = 0;
  const nlohmann::json events = nlohmann::json::parse(rpl::test::read_file(json))["traceEvents"];
  for (const auto& e : events)
    flows += e.value("ph", "") == "s";
  return flows;
}

}  // namespace

TEST_F(PerfettoTraceProcessor, LoadsTwentyThousandDispatchesWithEverySliceAndFlow) {
  auto [db, trace] = export_trace("trace", 20000, 1);
  std::size_t flows = json_export_flows(db, dir_);
  ASSERT_GT(flows, 0u);
  CliResult r = check(db, trace, {"--expect-flows", std::to_string(flows)});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("trace processor checks: all passed"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("ok   dispatch slices: expected 20000, trace processor 20000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok   import errors and data losses in the stats table"), std::string::npos) << r.out;
}

// The checks can fail: the same trace against another database (other durations, names per dispatch id).
TEST_F(PerfettoTraceProcessor, ReportsATraceThatDoesNotMatchItsDatabase) {
  auto [db, trace] = export_trace("trace", 2000, 1);
  auto [other_db, other_trace] = export_trace("other", 2000, 2);
  CliResult r = check(other_db, trace);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trace processor checks: "), std::string::npos) << r.out;
}

// Not a trace at all: the trace processor takes it without a word (it finds no packet), and the counts fail.
TEST_F(PerfettoTraceProcessor, FailsOnAFileThatIsNotATrace) {
  auto [db, trace] = export_trace("trace", 2000, 1);
  std::string garbage = dir_.file("garbage.pftrace");
  {
    std::FILE* f = std::fopen(garbage.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("\x0a\xff\xff\xff\xff\x0f this is not a trace", f);
    std::fclose(f);
  }
  CliResult r = check(db, garbage);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL dispatch slices: expected 2000, trace processor 0"), std::string::npos) << r.out;
}
