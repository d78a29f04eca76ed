// report.html and multi_rank.html as a user sees them (issue 29): each page is laid out by headless Chromium
// at 1024, 1400 and 2400 px, and a probe (tests/data/html/layout_probe.js) measures what was drawn: no
// horizontal overflow of the page nor of any box in it (a table scrolling inside its own box), no table header
// clipped, no kernel-name column squeezed, no two SVG texts over each other, no empty section. Pages: the example traces, compare.html of two pairs, long PyTorch names,
// a million dispatches and a 64-rank job. Screenshots at 1400 px are kept under build/artifacts/html-layout/ (CI
// artifacts). Skips, and says so, where Chromium is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "report/html_report.hpp"
#include "store/synthetic_job.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"
#include "testing/visual_sample.hpp"

namespace fs = std::filesystem;
using namespace rpl;
using namespace rpl::test;

namespace {

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"})
    if (std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0) return name;
  return "";
}

// The page with the probe appended, laid out at `width` px; the probe's findings.
nlohmann::json probe(const std::string& chromium, const TempDir& dir, const std::string& page, int width) {
  const std::string probed = dir.file("probed-" + fs::path(page).filename().string());
  {
    std::string html = read_file(page);
    const std::string script = "<script>" + read_file(std::string(RPL_SOURCE_DIR) + "/tests/data/html/layout_probe.js") +
                               "</script>";
    const auto end = html.rfind("</body>");
    html.insert(end == std::string::npos ? html.size() : end, script);
    std::ofstream(probed) << html;
  }
  const std::string dom = dir.file("dom.html");
  const std::string cmd = "timeout 180 " + chromium +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars"
                          " --window-size=" + std::to_string(width) + ",1200 --user-data-dir=" + dir.file("profile") +
                          " --dump-dom 'file://" + probed + "' >'" + dom + "' 2>'" + dir.file("chromium.err") + "'";
  if (std::system(cmd.c_str()) != 0) return {{"error", read_file(dir.file("chromium.err"))}};
  std::smatch m;
  const std::string text = read_file(dom);
  if (!std::regex_search(text, m, std::regex(R"(<pre id="layout-probe">([^<]*)</pre>)")))
    return {{"error", "no probe output"}};
  std::string json = m[1].str();
  for (auto [from, to] : {std::pair<std::string, std::string>{"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
    for (std::size_t at; (at = json.find(from)) != std::string::npos;) json.replace(at, from.size(), to);
  return nlohmann::json::parse(json);
}

void screenshot(const std::string& chromium, const TempDir& dir, const std::string& page, const std::string& name) {
  const fs::path artifacts = fs::path(RPL_BUILD_DIR) / "artifacts" / "html-layout";
  fs::create_directories(artifacts);
  const std::string cmd = "timeout 180 " + chromium +
                          " --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars"
                          " --window-size=1400,2400 --user-data-dir=" + dir.file("profile") + " --screenshot='" +
                          (artifacts / (name + "-1400.png")).string() + "' 'file://" + page + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << name;
}

void expect_clean_layout(const std::string& chromium, const TempDir& dir, const std::string& page,
                         const std::string& name) {
  ASSERT_TRUE(fs::exists(page)) << page;
  for (int width : {1024, 1400, 2400}) {
    const nlohmann::json r = probe(chromium, dir, page, width);
    ASSERT_FALSE(r.contains("error")) << name << " at " << width << ": " << r.dump();
    const std::string where = name + " at " + std::to_string(width) + " px: ";
    EXPECT_LE(r["pageOverflow"].get<int>(), 0) << where << "the page scrolls sideways";
    // A table in its own scroll box hides its last columns although the page itself does not scroll.
    EXPECT_TRUE(r["scrolledBoxes"].empty()) << where << r["scrolledBoxes"].dump();
    EXPECT_TRUE(r["beyond"].empty()) << where << r["beyond"].dump();
    EXPECT_TRUE(r["clippedHeaders"].empty()) << where << r["clippedHeaders"].dump();
    EXPECT_TRUE(r["narrowNames"].empty()) << where << r["narrowNames"].dump();
    EXPECT_TRUE(r["overlaps"].empty()) << where << r["overlaps"].dump();
    EXPECT_TRUE(r["emptySections"].empty()) << where << r["emptySections"].dump();
    EXPECT_GT(r["tables"].get<int>(), 0) << where;
  }
  screenshot(chromium, dir, page, name);
}

#define REQUIRE_CHROMIUM(var)                                                                                  \
  const std::string var = find_chromium();                                                                      \
  if (var.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium): layout test skipped"

}  // namespace

TEST(HtmlLayout, ExampleReports) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir;
  for (const char* example : {"generated-4streams", "multistream-h100", "multistream-h100-roofline"}) {
    const std::string out = dir.file(example);
    auto r = run_cli({"analyze", std::string(RPL_SOURCE_DIR) + "/examples/traces/" + example + ".db", "-o", out,
                      "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_clean_layout(chromium, dir, out + "/report.html", example);
  }
}

TEST(HtmlLayout, CompareReports) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir;
  const std::string traces = std::string(RPL_SOURCE_DIR) + "/examples/traces/";
  // The same program traced twice, and two unrelated programs (every kernel gone or new, warnings).
  auto r = run_cli({"compare", traces + "multistream-h100.db", traces + "multistream-h100-roofline.db", "-o",
                    dir.file("same"), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_clean_layout(chromium, dir, dir.file("same/compare.html"), "compare-same-program");
  r = run_cli({"compare", traces + "generated-4streams.db", traces + "multistream-h100.db", "-o", dir.file("other"),
               "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_clean_layout(chromium, dir, dir.file("other/compare.html"), "compare-unrelated");
}

TEST(HtmlLayout, LongPyTorchNames) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir;
  FixtureRows rows = fixture_rows();
  for (std::size_t i = 0; i < rows.symbols.size(); ++i)
    rows.symbols[i].display_name =
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::"
        "BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> > >(at::"
        "TensorIteratorBase&, at::native::BinaryFunctor<float, float, float, at::native::binary_internal::"
        "MulFunctor<float> > const&)::{lambda(int)#" + std::to_string(i + 1) + "}>(int, at::native::"
        "gpu_kernel_impl_nocast<at::native::BinaryFunctor<float, float, float, at::native::binary_internal::"
        "MulFunctor<float> > >(at::TensorIteratorBase&)::{lambda(int)#1})";
  write_fixture(rows, dir.file("long.db"));
  ASSERT_EQ(run_cli({"analyze", dir.file("long.db"), "-o", dir.file("long"), "--quiet"}).exit_code, 0);
  expect_clean_layout(chromium, dir, dir.file("long/report.html"), "long-pytorch-names");
}

TEST(HtmlLayout, MillionDispatches) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir;
  app::AnalyzeResults r = many_dispatches_results(1'000'000);
  report::write_html_report(dir.file("million.html"), r, nullptr, {});
  expect_clean_layout(chromium, dir, dir.file("million.html"), "million-dispatches");
}

// profile --deep's thread-trace tables (costliest ISA lines, 64 waves) on two kernels, one with a long name.
TEST(HtmlLayout, ThreadTraceTables) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir;
  app::AnalyzeResults r = visual_sample_results();
  r.stats.kernels[0].name =
      "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<"
      "c10::Half> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<c10::Half> const&)::{lambda(int)#1}>(int)";
  r.diagnosis.resize(r.stats.kernels.size());
  r.diagnosis[0].deep = att_sample_deep(80);
  r.diagnosis[1].deep = att_sample_deep(3);
  const report::RooflineView roofline = visual_sample_roofline();
  report::write_html_report(dir.file("att.html"), r, &roofline, {});
  expect_clean_layout(chromium, dir, dir.file("att.html"), "thread-trace");
}

TEST(HtmlLayout, SixtyFourRanks) {
  REQUIRE_CHROMIUM(chromium);
  TempDir dir;
  rocpd::SyntheticJob job;
  job.ranks = 64;
  job.ranks_per_node = 8;
  job.steps = 6;
  job.kernels_per_step = 3;
  job.straggler_rank = 5;
  job.straggler_delay_ns = 200000;
  job.output_dir = dir.file("job");
  rocpd::write_synthetic_job(job);
  auto r = run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--quiet", "--what-if", "AllReduce=0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_clean_layout(chromium, dir, dir.file("out/multi_rank.html"), "64-ranks");
}

TEST(HtmlNames, LegendNamesOfTemplatedKernelsStayApart) {
  // Two kernels that differ only in the middle of a long name: their legend entries differ (the old cut at 40
  // characters gave both the same text), and the full name stays in the title.
  app::AnalyzeResults r = visual_sample_results();
  const std::string head = "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<";
  const std::string tail = "> >(at::TensorIteratorBase&)::{lambda(int)#1}>(int, at::TensorIteratorBase&)";
  ASSERT_GE(r.stats.kernels.size(), 2u);
  r.stats.kernels[0].name = head + "at::native::CUDAFunctor_add<c10::Half>" + tail;
  r.stats.kernels[1].name = head + "at::native::CUDAFunctor_add<float>" + tail;
  const std::string page = report::render_html_report(r, nullptr, {});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(page, m, std::regex(R"(<div class="legend">[\s\S]*?</div>)")));
  const std::string legend = m.str();
  std::vector<std::string> shown;
  const std::regex entry(R"(</i>([^<]*)</span>)");
  for (std::sregex_iterator it(legend.begin(), legend.end(), entry), end; it != end; ++it)
    shown.push_back((*it)[1]);
  ASSERT_GE(shown.size(), 2u);
  EXPECT_NE(shown[0], shown[1]) << legend;
  EXPECT_NE(shown[0].find("Half"), std::string::npos) << shown[0];
}
