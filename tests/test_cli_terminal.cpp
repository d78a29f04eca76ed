// What a user reads in the terminal from `rocm-perf analyze` (issue 29): findings first, tables that fit 80
// columns (or the terminal's width), kernel names that stay apart and cannot forge lines, numbers with
// their sentence; and the flags that choose the names, refused with a clear message when wrong.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "report/analyze_report.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"
#include "testing/visual_sample.hpp"

using namespace rpl::test;

namespace {

// Two PyTorch-like kernels that differ only in the middle of their template arguments, and a third whose
// name carries a newline and a tab.
const std::string kHalf =
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<"
    "c10::Half> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<c10::Half> const&)::{lambda(int)#1}>(int, "
    "at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<c10::Half> >(at::TensorIteratorBase&)::"
    "{lambda(int)#1})";
const std::string kFloat =
    "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<"
    "float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1}>(int, "
    "at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&)::"
    "{lambda(int)#1})";
const std::string kForged = "evil\nFORGED   999   1.00 ms\tline";

std::string long_names_db(const TempDir& dir) {
  FixtureRows rows = fixture_rows();
  rows.symbols[0].display_name = kHalf;
  rows.symbols[0].kernel_name = "_ZN2at6native18elementwise_kernelILi128ELi4EHalfEEviT1_.kd";
  rows.symbols[1].display_name = kFloat;
  rows.symbols[2].display_name = kForged;
  const std::string path = dir.file("long_names.db");
  write_fixture(rows, path);
  return path;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::size_t longest_line(const std::string& text) {
  std::size_t n = 0;
  for (const auto& l : lines_of(text)) n = std::max(n, l.size());
  return n;
}

// The rows of the top-kernels table: the lines after its header ("  calls ...") up to the blank line that
// have a share column (the lines about a kernel's shapes do not).
std::vector<std::string> kernel_rows(const std::string& out) {
  std::vector<std::string> rows;
  bool in_table = false;
  for (const auto& l : lines_of(out)) {
    if (l.rfind("  calls", 0) == 0) in_table = true;
    else if (in_table && l.empty()) break;
    else if (in_table && l.find("%  ") != std::string::npos) rows.push_back(l);  // the share column; not shape lines
  }
  return rows;
}

}  // namespace

TEST(TerminalSummary, FitsEightyColumnsWithDistinctNamesAndNoForgedLine) {
  TempDir dir;
  const std::string db = long_names_db(dir);
  auto r = run_cli({"analyze", db, "-o", dir.file("out")}, {{"COLUMNS", "80"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LE(longest_line(r.out), 80u) << r.out;
  // The two templated kernels keep apart: their rows differ where the originals do.
  auto rows = kernel_rows(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  std::set<std::string> names;
  for (const auto& row : rows) names.insert(row.substr(row.rfind("  ") + 2));
  EXPECT_EQ(names.size(), 3u) << r.out;
  EXPECT_NE(r.out.find("Half"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("float"), std::string::npos) << r.out;
  // The newline and tab of a name are shown, not obeyed.
  EXPECT_NE(r.out.find("evil\\x0aFORGED"), std::string::npos) << r.out;
  for (const auto& l : lines_of(r.out)) EXPECT_NE(l.rfind("FORGED", 0), 0u) << l;
  EXPECT_EQ(r.out.find('\t'), std::string::npos);
  // Findings come first, each with its remedy.
  const auto findings = r.out.find("Findings (");
  ASSERT_NE(findings, std::string::npos) << r.out;
  EXPECT_LT(findings, r.out.find("Top kernels"));
  EXPECT_NE(r.out.find("remedy: "), std::string::npos) << r.out;
}

TEST(TerminalSummary, UsesTheWidthGivenAndShowsMoreColumnsWhenWide) {
  TempDir dir;
  const std::string db = long_names_db(dir);
  auto narrow = run_cli({"analyze", db, "-o", dir.file("out"), "--width", "80"});
  auto wide = run_cli({"analyze", db, "-o", dir.file("out"), "--width", "160"});
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_LE(longest_line(narrow.out), 80u) << narrow.out;
  EXPECT_LE(longest_line(wide.out), 160u) << wide.out;
  EXPECT_EQ(narrow.out.find("limiter"), std::string::npos) << narrow.out;  // left out at 80 ...
  EXPECT_NE(wide.out.find("limiter"), std::string::npos) << wide.out;      // ... shown at 160
  auto named = run_cli({"analyze", db, "-o", dir.file("out"), "--width", "80", "--name-width", "20"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  for (const auto& row : kernel_rows(named.out)) EXPECT_LE(row.substr(row.rfind("  ") + 2).size(), 20u) << row;
}

TEST(TerminalSummary, FullAndMangledNamesOnRequest) {
  TempDir dir;
  const std::string db = long_names_db(dir);
  auto full = run_cli({"analyze", db, "-o", dir.file("out"), "--names", "full"});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_NE(full.out.find(kFloat), std::string::npos) << full.out;
  auto mangled = run_cli({"analyze", db, "-o", dir.file("out"), "--names", "mangled"});
  ASSERT_EQ(mangled.exit_code, 0) << mangled.err;
  EXPECT_NE(mangled.out.find("_ZN2at6native18elementwise_kernelILi128ELi4EHalfEEviT1_"), std::string::npos)
      << mangled.out;
}

TEST(TerminalSummary, BadNameFlagsAreRefusedNamingTheValue) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  auto bad = run_cli({"analyze", db, "-o", dir.file("out"), "--names", "long"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("long"), std::string::npos) << bad.err;
  EXPECT_EQ(run_cli({"analyze", db, "-o", dir.file("out"), "--width", "10"}).exit_code, 2);
  EXPECT_EQ(run_cli({"analyze", db, "-o", dir.file("out"), "--name-width", "3"}).exit_code, 2);
}

TEST(TerminalSummary, NumbersCarryTheirSentence) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--width", "200"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The fixture's two copies lie outside the default window: the count says so.
  EXPECT_NE(r.out.find("0 copies in the window (outside it: 2 copies)"), std::string::npos) << r.out;
  EXPECT_EQ(read_file(dir.file("out/report.html")).find("id=\"kernel-filter\""), std::string::npos);  // no filter
  auto filtered = run_cli({"analyze", db, "-o", dir.file("out"), "--kernel", "reduce", "--width", "200"});
  ASSERT_EQ(filtered.exit_code, 0) << filtered.err;
  EXPECT_NE(filtered.out.find("Kernel filter: --kernel 'reduce'"), std::string::npos) << filtered.out;
  EXPECT_NE(read_file(dir.file("out/report.html")).find("id=\"kernel-filter\""), std::string::npos);  // and the page
  EXPECT_EQ(r.out.find("Kernel filter"), std::string::npos);
}

TEST(TerminalSummary, WhatIfTakesOneValueSoTheDatabaseMayFollow) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", "--what-if", "reduce=0.5", db, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reduce=0.5"), std::string::npos) << r.out;
  auto two = run_cli({"analyze", "--what-if", "reduce=0.5", "--what-if", "compute=0.5", db, "-o", dir.file("out")});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find("all together"), std::string::npos) << two.out;
}

// The terminal's findings are analysis.json's, in its order (the command builds the document once for both).
TEST(TerminalSummary, FindingsAreAnalysisJsonsInItsOrder) {
  TempDir dir;
  const std::string db = long_names_db(dir);
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--width", "200", "--top", "50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto findings = nlohmann::json::parse(read_file(dir.file("out/analysis.json")))["findings"];
  ASSERT_FALSE(findings.empty());
  EXPECT_NE(r.out.find(fmt::format("Findings ({}; evidence in analysis.json)", findings.size())), std::string::npos)
      << r.out;
  std::size_t at = 0;
  for (const auto& f : findings) {
    const std::string line = fmt::format("{} {}: ", f["severity"] == "warning" ? "!" : "-", f["id"].get<std::string>());
    at = r.out.find(line, at);
    ASSERT_NE(at, std::string::npos) << line << " not in order in\n" << r.out;
    ++at;
  }
}

// The summary prints the findings it is given, not ones of its own making.
TEST(TerminalSummary, PrintsTheFindingsItIsGiven) {
  const auto results = visual_sample_results();
  const nlohmann::json given = nlohmann::json::array(
      {{{"id", "probe_finding"}, {"severity", "warning"}, {"kernel", nullptr}, {"message", "given by the test"},
        {"remedy", "nothing to do"}}});
  const std::string out = rpl::report::terminal_summary(results, given, rpl::report::ReportOptions{});
  EXPECT_NE(out.find("Findings (1; evidence in analysis.json)"), std::string::npos) << out;
  EXPECT_NE(out.find("! probe_finding: given by the test"), std::string::npos) << out;
  EXPECT_NE(out.find("remedy: nothing to do"), std::string::npos) << out;
  const std::string none = rpl::report::terminal_summary(results, nlohmann::json::array(), rpl::report::ReportOptions{});
  EXPECT_NE(none.find("Findings (0; evidence in analysis.json)"), std::string::npos) << none;
}

// Every section fits every accepted width (40 up), the what-if one included (its heading alone was 84 columns),
// and ranges and API calls with long names too. Below 50 the tables whose numbers leave a name too little stack
// each name above its numbers (the critical-path and copy tables overflowed by up to 9 columns, the kernel table
// by 17); at 80 they keep one line a row.
TEST(TerminalSummary, EverySectionFitsTheWidth) {
  auto results = visual_sample_results();
  ASSERT_FALSE(results.what_if.empty());
  results.ranges.push_back({"forward pass of the transformer decoder layer, rank-local part", 4, 4'000'000, 900'000,
                            1'100'000, 8, 1, 3'000'000, 3'500'000});
  rpl::analysis::ApiStatsResult api;
  api.calls.push_back({"hipExtModuleLaunchKernelWithALongName", "HIP_RUNTIME_API_EXT", 12345, 1.5e9, 1.2e5, 1.1e5,
                       9.9e5, 1e3, 2.5e6, 99.5});
  api.total_calls = 12345;
  api.total_ns = 1.5e9;
  results.api_stats = api;
  rpl::report::ReportOptions options;
  for (std::size_t width = 40; width <= 80; ++width) {
    options.width = width;
    const std::string out = rpl::report::terminal_summary(results, nlohmann::json::array(), options);
    EXPECT_NE(out.find("What if"), std::string::npos) << out;
    EXPECT_LE(longest_line(out), width) << "--width " << width << "\n" << out;
    for (const char* shown : {"reduce", "MEMOR", "forwa", "hipEx", "12345"})  // names at least 12 wide
      EXPECT_NE(out.find(shown), std::string::npos) << shown << " at --width " << width << "\n" << out;
  }
  options.width = 80;  // wide enough: the kernel and critical-path tables keep the name beside the numbers
  const std::string wide = rpl::report::terminal_summary(results, nlohmann::json::array(), options);
  EXPECT_NE(wide.find("  calls"), std::string::npos) << wide;
  EXPECT_NE(wide.find("time  kernel / copy\n"), std::string::npos) << wide;
}

// compare and the analysis across ranks fit every accepted width too (their summary lines were 48 to 64 columns).
TEST(TerminalSummary, CompareAndRanksFitEveryWidth) {
  TempDir dir;
  const std::string examples = std::string(RPL_SOURCE_DIR) + "/examples/traces/";
  for (std::size_t width = 40; width <= 80; width += 4) {
    const std::string w = std::to_string(width);
    auto r = run_cli({"compare", examples + "multistream-h100.db", examples + "generated-4streams.db", "-o",
                      dir.file("compare"), "--width", w});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LE(longest_line(r.out), width) << r.out;
    EXPECT_NE(r.out.find("kernel time"), std::string::npos) << r.out;
    r = run_cli({"analyze", examples + "multistream-h100.db", examples + "generated-4streams.db", "--ranks", "-o",
                 dir.file("ranks"), "--no-html", "--width", w});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LE(longest_line(r.out), width) << r.out;
    EXPECT_NE(r.out.find("MEMORY_COPY_HOST_TO_DEVICE"), std::string::npos) << r.out;
  }
}

// profile --deep on AMD: the thread trace's costliest ISA lines and most stalled waves, in tables that fit the
// width; nothing when no kernel has thread-trace data.
TEST(TerminalSummary, ShowsThreadTraceHotLinesAndMostStalledWaves) {
  auto results = visual_sample_results();
  const auto none = nlohmann::json::array();
  rpl::report::ReportOptions options;
  EXPECT_EQ(rpl::report::terminal_summary(results, none, options).find("Thread trace (ATT)"), std::string::npos);
  results.diagnosis.resize(results.stats.kernels.size());
  results.diagnosis[1].deep = rpl::test::att_sample_deep(12);
  for (std::size_t width = 40; width < 80; ++width) {  // the deepest indent (4) at every accepted width
    options.width = width;
    EXPECT_LE(longest_line(rpl::report::terminal_summary(results, none, options)), width);
  }
  for (std::size_t width : {80u, 160u}) {
    options.width = width;
    const std::string out = rpl::report::terminal_summary(results, none, options);
    EXPECT_LE(longest_line(out), width) << out;
    const auto section = out.find("Thread trace (ATT)");
    ASSERT_NE(section, std::string::npos) << out;
    const std::string att = out.substr(section, out.find("\n\n", section) - section);  // up to the next section
    EXPECT_NE(att.find("reduce<A&B>"), std::string::npos) << att;
    EXPECT_NE(att.find("its 3 costliest ISA lines of 3"), std::string::npos) << att;
    const auto fma = att.find("v_fma_f32 v1, v2, v3");
    ASSERT_NE(fma, std::string::npos) << att;
    EXPECT_LT(fma, att.find("global_load_dword")) << att;
    EXPECT_NE(att.find("52.0%"), std::string::npos) << att;
    // 12 waves, 5 shown, the most stalled first: wave 9 (90%), then 8 (80%), 7, 6, 5.
    EXPECT_NE(att.find("its 5 most stalled of 12 traced waves"), std::string::npos) << att;
    const auto w90 = att.find("90.0%"), w80 = att.find("80.0%"), w50 = att.find("50.0%");
    ASSERT_NE(w90, std::string::npos) << att;
    EXPECT_LT(w90, w80);
    EXPECT_LT(w80, w50);
    EXPECT_EQ(att.find("40.0%"), std::string::npos) << att;
    EXPECT_NE(att.find("VMEM 70%, WAIT 30%"), std::string::npos) << att;
  }
  options.width = 160;
  EXPECT_NE(rpl::report::terminal_summary(results, none, options).find("kernel.hip:42"), std::string::npos);
}
