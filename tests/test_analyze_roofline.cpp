// Counters stored in rocpd (rocpd_pmc_event) through `analyze`: the reader sums them per dispatch and
// counter, the roofline and the bottleneck labels come out in roofline.json and analysis.json, report.html
// draws the points, and every new option's bad input gets its exit code.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "analysis/roofline_counters.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_writer.hpp"
#include "testing/counter_trace.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using namespace rpl::test;

namespace {

// Device-memory rate every counted dispatch gets: bytes = 4240 B/ns x its duration, read as 64-byte
// requests (TCC_EA0_RDREQ_sum; no 32-byte requests, no bubbles), so the kernel rate is exactly 4240 GB/s.
constexpr double kBytesPerNs = 4240.0;

// The default fixture's "compute" and "reduce" dispatches, with every counter the gfx942 roofline needs:
// zero except the 64-byte reads above and 1000 FP32 FMAs. "consume" gets none.
std::string make_counter_db(const TempDir& dir) {
  FixtureSpec spec;
  spec.counters = false;
  FixtureRows rows = fixture_rows(spec);
  add_counters(
      rows, rpl::analysis::roofline_counter_names(rpl::analysis::roofline_counter_set("gfx942")),
      [](const rpl::rocpd::DispatchRow& d, const std::string& n) -> std::optional<double> {
        if (d.kernel_id == 3) return std::nullopt;  // consume
        if (n == "TCC_EA0_RDREQ_sum") return kBytesPerNs * static_cast<double>(d.end - d.start) / 64;
        return n == "SQ_INSTS_VALU_FMA_F32" ? 1000.0 : 0.0;
      },
      {"TCC_EA0_RDREQ_sum"});  // two rows per counter for the reads: the reader must sum them
  std::string path = dir.file("counters.db");
  write_fixture(rows, path);
  return path;
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

const nlohmann::json* find_kernel(const nlohmann::json& list, const std::string& name) {
  for (const auto& k : list)
    if (k["name"] == name) return &k;
  return nullptr;
}

}  // namespace

TEST(RocpdCounters, ReaderSumsRowsPerDispatchAndCounter) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());  // SQ_WAVES 8192 + 8192, TCC_HIT 100 + 10 x id
  rpl::Trace trace = rpl::rocpd::read_databases({db});
  ASSERT_EQ(trace.counters.size(), 2 * trace.dispatches.size());
  for (const auto& c : trace.counters) {
    const auto& name = trace.strings.at(c.counter);
    ASSERT_LT(c.dispatch, trace.dispatches.size());
    const auto& d = trace.dispatches[c.dispatch];
    if (name == "SQ_WAVES")
      EXPECT_DOUBLE_EQ(c.value, 16384.0);
    else if (name == "TCC_HIT")
      EXPECT_DOUBLE_EQ(c.value, 100.0 + 10.0 * static_cast<double>(d.dispatch_id)) << d.dispatch_id;
    else
      ADD_FAILURE() << "unexpected counter " << name;
  }
}

TEST(RocpdCounters, TraceWithoutCountersHasNone) {
  TempDir dir;
  FixtureSpec spec;
  spec.counters = false;
  rpl::Trace trace = rpl::rocpd::read_databases({make_fixture_db(dir.path(), spec)});
  EXPECT_TRUE(trace.counters.empty());
  EXPECT_FALSE(trace.dispatches.empty());
}

TEST(AnalyzeRoofline, CountersGiveRooflinePointsLabelsAndAChart) {
  TempDir dir;
  std::string db = make_counter_db(dir);
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--memory-bandwidth-gbps", "5000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"profile", "dag", "analysis", "roofline"})
    EXPECT_EQ(validate_against_schema(f, dir.file(std::string("out/") + f + ".json")), "") << f;

  auto roofline = read_json(dir.file("out/roofline.json"));
  EXPECT_EQ(roofline["status"], "ok");
  EXPECT_TRUE(roofline["reason"].is_null());
  const nlohmann::json* compute = find_kernel(roofline["kernels"], "compute(float*, int)");
  ASSERT_NE(compute, nullptr) << roofline.dump(1);
  const auto& point = (*compute)["point"];
  EXPECT_EQ(point["status"], "ok") << point.dump(1);
  EXPECT_NEAR(point["bytes"]["hbm"]["gbytes_per_s"].get<double>(), kBytesPerNs, 1e-6);
  EXPECT_NEAR(point["bytes"]["hbm"]["fraction_of_peak"].get<double>(), kBytesPerNs / 5000, 1e-9);
  EXPECT_EQ(point["bound"], "memory");
  EXPECT_EQ((*compute)["bottleneck"]["primary"]["label"], "memory-bandwidth bound");
  EXPECT_EQ((*compute)["bottleneck"]["primary"]["rule"], "MB1");
  EXPECT_EQ(find_kernel(roofline["kernels"], "_Z7consumePf.kd"), nullptr);  // no counters, no point

  auto analysis = read_json(dir.file("out/analysis.json"));
  EXPECT_EQ(analysis["schema_version"], "1.7");
  const nlohmann::json* ranked = find_kernel(analysis["ranking"]["kernels"], "compute(float*, int)");
  ASSERT_NE(ranked, nullptr);
  EXPECT_EQ((*ranked)["bottleneck"]["primary"]["label"], "memory-bandwidth bound");
  EXPECT_NEAR((*ranked)["roofline"]["hbm_gbps"].get<double>(), kBytesPerNs, 1e-6);
  bool finding = false;
  for (const auto& f : analysis["findings"]) finding |= f["id"] == "bottleneck" && f["kernel"] == "compute(float*, int)";
  EXPECT_TRUE(finding) << analysis["findings"].dump(1);
  EXPECT_FALSE(analysis["bottleneck_rules"].empty());

  std::string html = read_file(dir.file("out/report.html"));
  EXPECT_NE(html.find("<svg id=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("data-kernel=\"compute(float*, int)\""), std::string::npos);
  EXPECT_NE(html.find("data-kernel=\"reduce(float*)\""), std::string::npos);
}

TEST(AnalyzeRoofline, BelowTheSaturationThresholdNoLabelIsGiven) {
  TempDir dir;
  std::string db = make_counter_db(dir);
  // 4240 of 10000 GB/s = 42 %: MB1 needs 60 %, so no label: the evidence supports none.
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--memory-bandwidth-gbps", "10000", "--no-html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out/report.html")));
  auto roofline = read_json(dir.file("out/roofline.json"));
  const nlohmann::json* compute = find_kernel(roofline["kernels"], "compute(float*, int)");
  ASSERT_NE(compute, nullptr);
  EXPECT_TRUE((*compute)["bottleneck"]["primary"].is_null()) << (*compute)["bottleneck"].dump(1);
  const std::string note = (*compute)["bottleneck"]["notes"].dump();
  EXPECT_NE(note.find("no rule fired"), std::string::npos) << note;
  EXPECT_NE(note.find("memory side"), std::string::npos) << note;
  EXPECT_NE(note.find("42%"), std::string::npos) << note;
}

TEST(AnalyzeRoofline, MeasuredCeilingsFileIsPreferredOverTheTable) {
  TempDir dir;
  std::string db = make_counter_db(dir);
  std::ofstream(dir.file("ceilings.json"))
      << R"({"schema_version":"1.0","device":{"arch":"gfx942"},"measured_at":"2026-11-24T00:00:00Z",)"
      << R"("bandwidth_gbps":{"hbm":4800},"gflops":{}})";
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--ceilings", dir.file("ceilings.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto roofline = read_json(dir.file("out/roofline.json"));
  const auto& hbm = roofline["devices"][0]["ceilings"];
  EXPECT_NE(hbm.dump().find("empirical"), std::string::npos) << hbm.dump(1);
  const nlohmann::json* compute = find_kernel(roofline["kernels"], "compute(float*, int)");
  ASSERT_NE(compute, nullptr);
  EXPECT_NEAR((*compute)["point"]["bytes"]["hbm"]["fraction_of_peak"].get<double>(), kBytesPerNs / 4800, 1e-9);
}

TEST(AnalyzeRoofline, WithoutRooflineCountersTheStatusSaysWhy) {
  TempDir dir;
  auto r = run_cli({"analyze", make_fixture_db(dir.path()), "-o", dir.file("a")});  // SQ_WAVES, TCC_HIT only
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(dir.file("a/roofline.json"))["status"], "no_roofline_counters");
  FixtureSpec spec;
  spec.counters = false;
  spec.file_name = "none.db";
  r = run_cli({"analyze", make_fixture_db(dir.path(), spec), "-o", dir.file("b")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = read_json(dir.file("b/roofline.json"));
  EXPECT_EQ(doc["status"], "no_counter_data");
  EXPECT_NE(doc["reason"].get<std::string>().find("--roofline"), std::string::npos);
  EXPECT_EQ(validate_against_schema("roofline", dir.file("b/roofline.json")), "");
  EXPECT_NE(read_file(dir.file("b/report.html")).find("roofline-none"), std::string::npos);
}

TEST(AnalyzeRoofline, DeepMetricsAloneGiveTheDeepAnalysisInAnalysisJson) {
  // `profile --deep` on NVIDIA stores only the deep-analysis metrics: no roofline point, but the stall
  // reasons and occupancy still reach analysis.json (and the classifier).
  CounterTraceBuilder b;
  rpl::Index gpu = b.agent("sm_90", "NVIDIA H100 80GB HBM3", 132);
  rpl::Index k = b.kernel("chase(unsigned int*)", "_Z5chasePj");
  for (int i = 0; i < 2; ++i) {
    rpl::Index d = b.dispatch(k, gpu, 1000 + 2000 * i, 1000);
    b.counters(d, {{"gpu__time_duration.sum", 1000},
                   {"sm__warps_active.avg.pct_of_peak_sustained_active", 90},
                   {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 50},
                   {"smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", 1}});
  }
  b.trace().processes[0].guid = "0198a0b1-2c3d-7e4f-8a9b-0000000000d1";
  TempDir dir;
  rpl::rocpd::write_process(b.trace(), 0, dir.file("deep.db"));
  auto r = run_cli({"analyze", dir.file("deep.db"), "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_json(dir.file("out/roofline.json"))["status"], "no_roofline_counters");
  EXPECT_EQ(validate_against_schema("analysis", dir.file("out/analysis.json")), "");
  auto analysis = read_json(dir.file("out/analysis.json"));
  const auto* kernel = find_kernel(analysis["ranking"]["kernels"], "chase(unsigned int*)");
  ASSERT_NE(kernel, nullptr);
  const auto& deep = (*kernel)["deep_analysis"];
  ASSERT_TRUE(deep.is_object()) << kernel->dump(1);
  EXPECT_TRUE(deep["available"].get<bool>());
  EXPECT_DOUBLE_EQ(deep["achieved_occupancy"].get<double>(), 0.90);
  EXPECT_EQ((*kernel)["bottleneck"]["primary"]["label"], "latency bound") << (*kernel)["bottleneck"].dump(1);
}

TEST(AnalyzeRooflineBadInput, CeilingsAndBandwidthErrorsNameTheValue) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", db, "-o", dir.file("o"), "--ceilings", dir.file("missing.json")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;

  std::ofstream(dir.file("bad.json")) << "{not json";
  r = run_cli({"analyze", db, "-o", dir.file("o"), "--ceilings", dir.file("bad.json")});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;

  std::ofstream(dir.file("wrong.json")) << R"({"schema_version":"1.0","device":{}})";
  r = run_cli({"analyze", db, "-o", dir.file("o"), "--ceilings", dir.file("wrong.json")});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("device.arch"), std::string::npos) << r.err;

  for (const char* bw : {"0", "-5", "nan"}) {
    r = run_cli({"analyze", db, "-o", dir.file("o"), "--memory-bandwidth-gbps", bw});
    EXPECT_EQ(r.exit_code, 2) << bw << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.file("o")));  // nothing written on bad options
}

TEST(ExportPerfetto, WritesOneTrackPerStreamWithFlows) {
  TempDir dir;
  std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"export", "perfetto", db, "-o", dir.file("t.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // logs go to stderr
  auto doc = read_json(dir.file("t.json"));
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::set<std::pair<int64_t, int64_t>> tracks;
  std::size_t slices = 0, flows = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") ++slices, tracks.insert({e["pid"].get<int64_t>(), e["tid"].get<int64_t>()});
    if (e["ph"] == "s") ++flows;
  }
  EXPECT_GE(slices, 9u);   // 7 dispatches + 2 copies (and the critical-path track repeats some)
  EXPECT_GE(tracks.size(), 3u);  // default stream + 2 user streams (+ the critical-path track)
  EXPECT_GE(flows, 1u);          // the recorded event wait
}

TEST(ExportPerfetto, BadInputsHaveTheirExitCodes) {
  TempDir dir;
  auto r = run_cli({"export", "perfetto", dir.file("missing.db"), "-o", dir.file("t.json")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("missing.db"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("t.json")));
  r = run_cli({"export", "perfetto"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"export"});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"export", "perfetto", make_fixture_db(dir.path()), "-o", dir.file("no/such/dir/t.json")});
  EXPECT_EQ(r.exit_code, 10) << r.err;
}

// The embedded example (integer kernels on an H100, counters included): every kernel is placed, those without
// FLOPs by their bandwidth, those whose data stayed in L2 by their L2 intensity; nothing says "No roofline".
TEST(AnalyzeRoofline, TheExampleTracePlacesEveryKernel) {
  TempDir dir;
  auto r = run_cli({"analyze", std::string(RPL_SOURCE_DIR) + "/examples/traces/multistream-h100-roofline.db", "-o",
                    dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_file(dir.file("out/report.html"));
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(html.find("No roofline"), std::string::npos);
  EXPECT_EQ(count("<rect class=\"bar b-memory\""), 3u);  // stage_a1, b2, c2: no FLOPs
  EXPECT_EQ(count("<circle class=\"point"), 2u);         // stage_b1, c1: FLOPs, bytes in L2 only
  EXPECT_EQ(count("of L2 bytes (none reached device memory)"), 2u);
  EXPECT_EQ(html.find("roofline-undrawn"), std::string::npos);
}
