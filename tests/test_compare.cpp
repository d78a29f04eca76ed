// rocm-perf compare A B (issue 29): the significance test, kernels that got faster, appeared or disappeared,
// launch shapes, ranges and the critical path between two runs; unrelated runs warned about; the spread between a
// profile directory's runs; compare.json against its schema, the terminal at 80 columns, compare.html; bad inputs
// named with the exit-code table's codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include <fmt/format.h>

#include "analysis/roofline_counters.hpp"
#include "analysis/run_compare.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::test;
using nlohmann::json;

namespace {

const std::string kExamples = std::string(RPL_SOURCE_DIR) + "/examples/traces/";

// The default fixture with `scale` applied to the durations of the kernels of symbol `symbol`.
FixtureRows scaled(int64_t symbol, double scale, FixtureSpec spec = {}) {
  FixtureRows rows = fixture_rows(spec);
  for (auto& d : rows.dispatches)
    if (d.kernel_id == symbol) d.end = d.start + static_cast<TimeNs>(static_cast<double>(d.end - d.start) * scale);
  return rows;
}

std::string write(const FixtureRows& rows, const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_fixture(rows, path);
  return path;
}

json kernel(const json& doc, const std::string& name) {
  for (const auto& k : doc["kernels"])
    if (k["name"] == name) return k;
  ADD_FAILURE() << "no kernel " << name << " in " << doc.dump();
  return json::object();
}

std::size_t widest_line(const std::string& text) {
  std::istringstream in(text);
  std::size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, line.size());
  return widest;
}

analysis::CompareSide side_with(const std::string& name, std::vector<double> per_call) {
  analysis::CompareSide s;
  analysis::KernelStats k;
  k.name = name;
  double total = 0;
  for (double v : per_call) total += v;
  k.durations = analysis::compute_duration_stats(per_call);
  s.stats.kernels.push_back(k);
  s.runtime_per_run_ns = {total};
  s.kernel_time_per_run_ns[name] = {total};
  return s;
}

// The fixture with every counter the gfx942 roofline needs on the kernels `bytes_per_ns` has a rate for: zero but
// 64-byte device-memory reads at that rate (or L2 reads where `in_l2` names the kernel: its data stays in L2) and
// 1000 FP32 FMAs per dispatch. Symbols: 1 compute, 2 reduce, 3 consume.
std::string counter_db(const std::string& path, std::map<int64_t, double> bytes_per_ns, std::set<int64_t> in_l2 = {}) {
  FixtureSpec spec;
  spec.counters = false;
  FixtureRows rows = fixture_rows(spec);
  add_counters(rows, analysis::roofline_counter_names(analysis::roofline_counter_set("gfx942")),
               [&](const rocpd::DispatchRow& d, const std::string& n) -> std::optional<double> {
                 auto rate = bytes_per_ns.find(d.kernel_id);
                 if (rate == bytes_per_ns.end()) return std::nullopt;
                 const double requests = rate->second * static_cast<double>(d.end - d.start) / 64;
                 const bool l2 = in_l2.count(d.kernel_id) > 0;
                 if (n == "TCC_EA0_RDREQ_sum") return l2 ? 0.0 : requests;
                 if (n == "TCP_TCC_READ_REQ_sum") return requests;
                 return n == "SQ_INSTS_VALU_FMA_F32" ? 1000.0 : 0.0;
               });
  return write(rows, path);
}

json roofline_entry(const json& doc, const std::string& name) {
  for (const auto& m : doc["roofline"])
    if (m["name"] == name) return m;
  ADD_FAILURE() << "no roofline entry " << name << " in " << doc["roofline"].dump();
  return json::object();
}

}  // namespace

TEST(CompareWelch, SeparatesAChangeFromTheSpread) {
  // Means 100 and 110, sd 1, 5 samples each: t = 10 / sqrt(0.4) = 15.8, far beyond 2.3.
  auto t = analysis::welch_test(100, 1, 5, 110, 1, 5, "runs");
  EXPECT_EQ(t.verdict, analysis::Significance::Significant);
  EXPECT_NEAR(t.t, 15.81, 0.01);
  EXPECT_NEAR(t.dof, 8, 1e-9);
  // The same means with sd 10: t = 1.58 < 2.31.
  EXPECT_EQ(analysis::welch_test(100, 10, 5, 110, 10, 5, "runs").verdict, analysis::Significance::WithinNoise);
  // One sample on a side: no spread to judge by.
  EXPECT_EQ(analysis::welch_test(100, 0, 1, 110, 1, 5, "runs").verdict, analysis::Significance::Unknown);
  // No spread at all: any difference is real, none is none.
  EXPECT_EQ(analysis::welch_test(100, 0, 3, 101, 0, 3, "calls").verdict, analysis::Significance::Significant);
  EXPECT_EQ(analysis::welch_test(100, 0, 3, 100, 0, 3, "calls").verdict, analysis::Significance::WithinNoise);
}

TEST(CompareRuns, KernelsMatchedByNameWithPresenceAndUnrelatedRunsWarned) {
  analysis::CompareSide a = side_with("gemm", {100, 101, 99, 100});
  analysis::CompareSide b = side_with("gemm", {50, 51, 49, 50});
  auto r = analysis::compare_runs(a, b);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].test.verdict, analysis::Significance::Significant);
  EXPECT_EQ(r.kernels[0].test.basis, "calls");
  EXPECT_DOUBLE_EQ(r.kernels[0].delta_ns, -200);
  EXPECT_TRUE(r.warnings.empty());
  // Nothing in common: every kernel gone or new, and the warning says they look like different programs.
  r = analysis::compare_runs(side_with("gemm", {100}), side_with("conv", {100}));
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no kernel in common"), std::string::npos);
  // Most of B's time in a kernel A never ran: still warned, with the shares.
  b = side_with("gemm", {100});
  analysis::KernelStats extra;
  extra.name = "new_kernel";
  std::vector<double> d = {900};
  extra.durations = analysis::compute_duration_stats(d);
  b.stats.kernels.push_back(extra);
  b.runtime_per_run_ns = {1000};
  r = analysis::compare_runs(side_with("gemm", {100}), b);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("10% of B's"), std::string::npos) << r.warnings[0];
}

// A pair where one kernel got twice as fast: that kernel is first, significant, and the critical path moved; the
// kernels that did not change are within the noise of their calls.
TEST(CompareCli, AKernelThatGotFasterStandsOut) {
  TempDir dir;
  const std::string a = write(fixture_rows(), dir.file("a/run.db"));
  const std::string b = write(scaled(1, 0.5), dir.file("b/run.db"));
  auto r = run_cli({"compare", a, b, "-o", dir.file("out"), "--width", "80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("compare", dir.file("out/compare.json")), "");
  const json doc = json::parse(read_file(dir.file("out/compare.json")));
  EXPECT_EQ(doc["schema_version"], "1.1");
  EXPECT_EQ(doc["kernels"][0]["name"], "compute(float*, int)");  // the largest change first
  const json compute = kernel(doc, "compute(float*, int)");
  EXPECT_EQ(compute["significance"], "significant");
  EXPECT_EQ(compute["basis"], "calls");
  EXPECT_EQ(compute["calls_a"], 4);
  EXPECT_EQ(compute["calls_b"], 4);
  EXPECT_NEAR(compute["relative_change"].get<double>(), -0.5, 0.001);
  EXPECT_FALSE(compute["shapes_changed"].get<bool>());
  EXPECT_EQ(kernel(doc, "reduce(float*)")["significance"], "within_noise");
  // The launches kept their timestamps, so the path's length is the same, but the kernel's part of it shrank.
  EXPECT_EQ(doc["critical_path"]["b_ns"], doc["critical_path"]["a_ns"]);
  EXPECT_GT(compute["path_a_ns"].get<double>(), 0);
  EXPECT_LT(compute["path_b_ns"].get<double>(), compute["path_a_ns"].get<double>());
  EXPECT_FALSE(doc["critical_path"]["contributors"].empty());
  EXPECT_TRUE(doc["warnings"].empty());
  // The terminal: the totals, the kernel with its change, the critical path; 80 columns.
  EXPECT_NE(r.out.find("kernel time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-50.0%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Critical path:"), std::string::npos) << r.out;
  EXPECT_LE(widest_line(r.out), 80u) << r.out;
  const std::string page = read_file(dir.file("out/compare.html"));
  EXPECT_NE(page.find("id=\"compare-kernels\""), std::string::npos);
  EXPECT_NE(page.find("compute(float*, int)"), std::string::npos);
}

// A kernel that disappears and one that appears, a changed launch shape and ranges that changed.
TEST(CompareCli, KernelsThatAppearOrDisappearAndShapesThatChange) {
  TempDir dir;
  FixtureRows base = fixture_rows();
  FixtureRows next = fixture_rows();
  // B: the "reduce" kernels launched as a new kernel "reduce_v2" (symbol 2 renamed), "compute" with a larger grid.
  next.symbols[1].display_name = "reduce_v2(float*)";
  next.symbols[1].kernel_name = "_Z9reduce_v2Pf.kd";
  for (auto& d : next.dispatches)
    if (d.kernel_id == 1) d.grid[0] = 2 * 1048576;
  const int64_t tid = base.threads[0].tid;
  const TimeNs t0 = FixtureSpec{}.t0;
  auto range = [&](FixtureRows& rows, const char* name, TimeNs start, TimeNs end) {
    add_marker_range(rows, tid, name, start, end);
  };
  range(base, "step", t0 + 19000, t0 + 39000);  // launches 2 and 3
  range(next, "step", t0 + 19000, t0 + 79000);  // launches 2 to 7: longer on the host and on the GPU
  range(next, "warmup", t0 + 500, t0 + 900);
  const std::string a = write(base, dir.file("a.db"));
  const std::string b = write(next, dir.file("b.db"));
  auto r = run_cli({"compare", a, b, "-o", dir.file("out"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("compare", dir.file("out/compare.json")), "");
  const json doc = json::parse(r.out);  // --json: the document, nothing else
  EXPECT_EQ(doc, json::parse(read_file(dir.file("out/compare.json"))));
  EXPECT_EQ(kernel(doc, "reduce(float*)")["presence"], "only_a");
  EXPECT_EQ(kernel(doc, "reduce(float*)")["calls_b"], 0);
  EXPECT_EQ(kernel(doc, "reduce_v2(float*)")["presence"], "only_b");
  EXPECT_EQ(kernel(doc, "reduce_v2(float*)")["relative_change"], nullptr);
  const json compute = kernel(doc, "compute(float*, int)");
  EXPECT_TRUE(compute["shapes_changed"].get<bool>());
  EXPECT_EQ(compute["shapes_a"][0], "grid 1048576x1x1 block 256x1x1 lds 0");
  EXPECT_EQ(compute["shapes_b"][0], "grid 2097152x1x1 block 256x1x1 lds 0");
  std::map<std::string, json> ranges;
  for (const auto& s : doc["ranges"]) ranges[s["name"].get<std::string>()] = s;
  EXPECT_EQ(ranges["step"]["presence"], "both");
  EXPECT_EQ(ranges["step"]["gpu_kernels_a"], 2);
  EXPECT_EQ(ranges["step"]["gpu_kernels_b"], 6);
  EXPECT_GT(ranges["step"]["gpu_busy_b_ns"].get<int64_t>(), ranges["step"]["gpu_busy_a_ns"].get<int64_t>());
  EXPECT_EQ(ranges["warmup"]["presence"], "only_b");
  // The terminal names them so.
  r = run_cli({"compare", a, b, "-o", dir.file("out"), "--width", "120"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gone"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("new"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("* compute(float*, int): launch shapes A: grid 1048576x1x1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Ranges (NVTX / ROCTx)"), std::string::npos) << r.out;
  EXPECT_LE(widest_line(r.out), 120u) << r.out;
}

// The example traces: the same H100 program traced twice (one with counters) compares without a warning and shows
// its kernels; two unrelated programs are warned about on stderr and in compare.json.
TEST(CompareCli, ExampleTracesAndUnrelatedRuns) {
  TempDir dir;
  auto r = run_cli({"compare", kExamples + "multistream-h100.db", kExamples + "multistream-h100-roofline.db", "-o",
                    dir.file("same"), "--width", "80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("compare", dir.file("same/compare.json")), "");
  json doc = json::parse(read_file(dir.file("same/compare.json")));
  EXPECT_TRUE(doc["warnings"].empty()) << doc["warnings"].dump();
  EXPECT_GT(doc["a"]["shared_kernel_time_share"].get<double>(), 0.99);
  EXPECT_LE(widest_line(r.out), 80u) << r.out;

  r = run_cli({"compare", kExamples + "generated-4streams.db", kExamples + "multistream-h100.db", "-o",
               dir.file("unrelated"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no kernel in common"), std::string::npos) << r.err;  // --json: the warnings on stderr
  EXPECT_NE(r.err.find("AMD Instinct MI300X"), std::string::npos) << r.err;  // and the devices differ
  doc = json::parse(r.out);
  EXPECT_EQ(doc["warnings"].size(), 2u);
  r = run_cli({"compare", kExamples + "generated-4streams.db", kExamples + "multistream-h100.db", "-o",
               dir.file("unrelated"), "--width", "80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("warning: A and B have no kernel in common"), std::string::npos) << r.out;  // first
  EXPECT_LT(r.out.find("warning:"), r.out.find("kernel time"));
  EXPECT_LE(widest_line(r.out), 80u) << r.out;
}

// `profile` output directories: runs/run-K/ give the spread between runs; a small change inside the runs' noise is
// not called significant, a large one is; --quiet prints the change of the kernel time in percent.
TEST(CompareCli, ProfileDirectoriesJudgeByTheSpreadBetweenRuns) {
  TempDir dir;
  const double jitter[] = {1.00, 1.04, 0.97, 1.02, 0.98};
  for (int k = 0; k < 5; ++k) {
    write(scaled(1, jitter[k]), dir.file(fmt::format("a/runs/run-{}/results.db", k + 1)));
    write(scaled(1, jitter[(k + 2) % 5] * 1.01), dir.file(fmt::format("noise/runs/run-{}/results.db", k + 1)));
    write(scaled(1, jitter[k] * 0.6), dir.file(fmt::format("faster/runs/run-{}/results.db", k + 1)));
  }
  auto r = run_cli({"compare", dir.file("a"), dir.file("noise"), "-o", dir.file("o1"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["a"]["runs"], 5);
  EXPECT_EQ(doc["kernel_time"]["basis"], "runs");
  EXPECT_EQ(doc["kernel_time"]["significance"], "within_noise");
  EXPECT_EQ(kernel(doc, "compute(float*, int)")["basis"], "runs");
  EXPECT_EQ(kernel(doc, "compute(float*, int)")["significance"], "within_noise");

  r = run_cli({"compare", dir.file("a"), dir.file("faster"), "-o", dir.file("o2"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  EXPECT_EQ(doc["kernel_time"]["significance"], "significant");
  EXPECT_EQ(kernel(doc, "compute(float*, int)")["significance"], "significant");

  r = run_cli({"compare", dir.file("a"), dir.file("faster"), "-o", dir.file("o3"), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const double percent = std::stod(r.out);
  EXPECT_NEAR(percent, 100 * (doc["kernel_time"]["b_ns"].get<double>() - doc["kernel_time"]["a_ns"].get<double>()) /
                           doc["kernel_time"]["a_ns"].get<double>(),
              0.001);
  EXPECT_LT(percent, -20);
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);  // one line
}

// Bad inputs: the message names the side and the file, the exit code is the table's.
TEST(CompareCli, BadInputsAreNamedWithTheirExitCode) {
  TempDir dir;
  const std::string good = write(fixture_rows(), dir.file("good.db"));
  auto r = run_cli({"compare", good, dir.file("missing.db"), "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("B: " + dir.file("missing.db")), std::string::npos) << r.err;
  std::ofstream(dir.file("notes.db")) << "not a database\n";
  r = run_cli({"compare", dir.file("notes.db"), good, "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("A: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("notes.db"), std::string::npos) << r.err;
  std::filesystem::create_directories(dir.file("empty"));
  r = run_cli({"compare", good, dir.file("empty"), "-o", dir.file("out")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no rocpd database"), std::string::npos) << r.err;
  r = run_cli({"compare", good});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_cli({"compare", good, good, "--json", "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// Roofline points on both sides (traces with counters): points that moved, one that went (consume: counted in A
// only) and, with the runs swapped, appeared; the same run twice moves nothing. In compare.json (against its
// schema), the terminal and compare.html. A kernel whose data stays in L2 (no device-memory bytes) is judged by
// its L2 bandwidth, not by device memory's zero.
TEST(CompareCli, RooflinePointsMovedAppearedAndGone) {
  TempDir dir;
  // A: compute 4000 B/ns, reduce 2000 B/ns in L2 only, consume 1000 B/ns. B: compute 2000 B/ns (moved), reduce
  // 1000 B/ns in L2 (moved along L2), consume without counters (gone).
  const std::string a = counter_db(dir.file("a.db"), {{1, 4000}, {2, 2000}, {3, 1000}}, {2});
  const std::string b = counter_db(dir.file("b.db"), {{1, 2000}, {2, 1000}}, {2});
  auto r = run_cli({"compare", a, b, "-o", dir.file("out"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("compare", dir.file("out/compare.json")), "");
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], "1.1");
  ASSERT_EQ(doc["roofline"].size(), 3u) << doc["roofline"].dump(1);
  const json compute = roofline_entry(doc, "compute(float*, int)");
  EXPECT_EQ(compute["presence"], "both");
  EXPECT_TRUE(compute["moved"].get<bool>());
  EXPECT_EQ(compute["bandwidth_level"], "hbm");
  EXPECT_NEAR(compute["gbps_a"].get<double>(), 4000, 1);
  EXPECT_NEAR(compute["gbps_b"].get<double>(), 2000, 1);
  EXPECT_NEAR(compute["hbm_gbps_b"].get<double>(), 2000, 1);
  const json reduce = roofline_entry(doc, "reduce(float*)");
  EXPECT_EQ(reduce["presence"], "both");
  EXPECT_EQ(reduce["bandwidth_level"], "l2");
  EXPECT_NEAR(reduce["gbps_a"].get<double>(), 2000, 1);
  EXPECT_NEAR(reduce["gbps_b"].get<double>(), 1000, 1);
  EXPECT_TRUE(reduce["moved"].get<bool>());  // along L2: device memory says 0 -> 0
  const json consume = roofline_entry(doc, "consume(float*)");
  EXPECT_EQ(consume["presence"], "only_a");
  EXPECT_FALSE(consume["moved"].get<bool>());
  EXPECT_NEAR(consume["gbps_a"].get<double>(), 1000, 1);
  EXPECT_TRUE(consume["gbps_b"].is_null());
  EXPECT_TRUE(consume["intensity_b"].is_null());

  // Reversed, the point appears; the same run against itself moves nothing.
  r = run_cli({"compare", b, a, "-o", dir.file("rev"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  EXPECT_EQ(roofline_entry(doc, "consume(float*)")["presence"], "only_b");
  r = run_cli({"compare", a, a, "-o", dir.file("same"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  for (const auto& m : doc["roofline"]) {
    EXPECT_EQ(m["presence"], "both") << m.dump();
    EXPECT_FALSE(m["moved"].get<bool>()) << m.dump();
  }

  // The terminal counts and lists them; compare.html has a row each.
  r = run_cli({"compare", a, b, "-o", dir.file("out"), "--width", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Roofline points: 2 of 2 kernels with a point in both runs moved"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 appeared in B, 1 gone from B"), std::string::npos) << r.out;
  const auto table = r.out.substr(r.out.find("Roofline points:"));
  EXPECT_NE(table.find("gone"), std::string::npos) << table;
  EXPECT_NE(table.find("L2"), std::string::npos) << table;
  EXPECT_LE(widest_line(r.out), 100u) << r.out;
  const std::string page = read_file(dir.file("out/compare.html"));
  const auto roof = page.substr(page.find("id=\"compare-roofline\""));
  EXPECT_NE(roof.find("<td>moved</td>"), std::string::npos);
  EXPECT_NE(roof.find("<td>gone</td>"), std::string::npos);
  EXPECT_NE(roof.find("<td>L2</td>"), std::string::npos);
}

// The critical path's change is judged by the spread of the runs' critical paths where both sides have several
// runs; a comparison of single traces says it is one. Terminal, compare.json and compare.html.
TEST(CompareCli, CriticalPathChangeHasItsSignificance) {
  TempDir dir;
  const double jitter[] = {1.00, 1.04, 0.97, 1.02, 0.98};
  for (int k = 0; k < 5; ++k) {
    // Every kernel scaled: the critical path (kernels of both streams, the consumer) moves with them.
    FixtureRows base = scaled(1, jitter[k]), noise = scaled(1, jitter[(k + 2) % 5] * 1.01),
                faster = scaled(1, jitter[k] * 0.5);
    for (FixtureRows* rows : {&base, &noise, &faster}) {
      const double f = rows == &base ? jitter[k] : rows == &noise ? jitter[(k + 2) % 5] * 1.01 : jitter[k] * 0.5;
      for (auto& d : rows->dispatches)
        if (d.kernel_id != 1) d.end = d.start + static_cast<TimeNs>(static_cast<double>(d.end - d.start) * f);
    }
    write(base, dir.file(fmt::format("a/runs/run-{}/results.db", k + 1)));
    write(noise, dir.file(fmt::format("noise/runs/run-{}/results.db", k + 1)));
    write(faster, dir.file(fmt::format("faster/runs/run-{}/results.db", k + 1)));
  }
  auto r = run_cli({"compare", dir.file("a"), dir.file("faster"), "-o", dir.file("o1"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("compare", dir.file("o1/compare.json")), "");
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["critical_path"]["basis"], "runs");
  EXPECT_EQ(doc["critical_path"]["significance"], "significant");
  EXPECT_LT(doc["critical_path"]["t"].get<double>(), 0);
  EXPECT_LT(doc["critical_path"]["b_ns"].get<double>(), doc["critical_path"]["a_ns"].get<double>());
  EXPECT_EQ(doc["critical_path"]["statement"].get<std::string>().rfind("significant over 5 and 5 runs", 0), 0u)
      << doc["critical_path"].dump();

  r = run_cli({"compare", dir.file("a"), dir.file("noise"), "-o", dir.file("o2"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = json::parse(r.out);
  EXPECT_EQ(doc["critical_path"]["significance"], "within_noise") << doc["critical_path"].dump();
  r = run_cli({"compare", dir.file("a"), dir.file("noise"), "-o", dir.file("o2"), "--width", "80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("critical path: within the runs' spread over 5 and 5 runs"), std::string::npos) << r.out;
  EXPECT_LE(widest_line(r.out), 80u) << r.out;
  std::string page = read_file(dir.file("o2/compare.html"));
  EXPECT_NE(page.find("within the runs&#39; spread over 5 and 5 runs"), std::string::npos);

  // One trace against a profile directory: a single-run comparison, said so, no test.
  r = run_cli({"compare", dir.file("a/runs/run-1/results.db"), dir.file("faster"), "-o", dir.file("o3"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("compare", dir.file("o3/compare.json")), "");
  doc = json::parse(r.out);
  EXPECT_EQ(doc["critical_path"]["significance"], "unknown");
  EXPECT_TRUE(doc["critical_path"]["basis"].is_null());
  EXPECT_EQ(doc["critical_path"]["statement"].get<std::string>().rfind("a single-run comparison (1 and 5 runs)", 0), 0u)
      << doc["critical_path"].dump();
  r = run_cli({"compare", dir.file("a/runs/run-1/results.db"), dir.file("a/runs/run-2/results.db"), "-o",
               dir.file("o4"), "--width", "80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("critical path: a single-run comparison (1 and 1 run)"), std::string::npos) << r.out;
  page = read_file(dir.file("o4/compare.html"));
  EXPECT_NE(page.find("id=\"path-significance\""), std::string::npos);
  EXPECT_NE(page.find("a single-run comparison"), std::string::npos);
}
