// report.html: structure and escaping checked on the string, then rendered by headless Chromium (when
// installed) to check the DOM it builds and to take a screenshot.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "report/html_report.hpp"
#include "report/html_util.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"
#include "testing/visual_sample.hpp"

namespace fs = std::filesystem;
using rpl::test::TempDir;
using rpl::test::visual_sample_results;
using rpl::test::visual_sample_roofline;

namespace {

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

std::string render(const rpl::app::AnalyzeResults& r, const rpl::report::RooflineView* roofline) {
  return rpl::report::render_html_report(r, roofline, rpl::report::HtmlOptions{});
}

// Checks that every '<' opens a tag, comment or doctype, and that tags nest: the page is balanced as
// written (void elements are written self-closing). Returns "" or the first problem.
std::string check_balanced(const std::string& html) {
  std::vector<std::string> open;
  for (std::size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
    if (html.compare(i, 4, "<!--") == 0) {
      i = html.find("-->", i);
      if (i == std::string::npos) return "unterminated comment";
      continue;
    }
    if (html.compare(i, 2, "<!") == 0) continue;  // doctype
    std::size_t end = html.find('>', i);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(i);
    bool closing = html[i + 1] == '/';
    std::size_t name_start = i + (closing ? 2 : 1);
    std::size_t name_end = html.find_first_of(" \t\n/>", name_start);
    std::string name = html.substr(name_start, name_end - name_start);
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
      return "a raw '<' in text at " + std::to_string(i) + ": " + html.substr(i, 40);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes <" + (open.empty() ? std::string("nothing") : open.back()) + "> at " +
               std::to_string(i);
      open.pop_back();
    } else if (html[end - 1] != '/') {
      open.push_back(name);
    }
    i = end;
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

}  // namespace

TEST(HtmlEscape, EscapesMarkupAndQuotesAndRepairsInvalidUtf8) {
  using rpl::report::html::escape;
  EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape("tab\tok\x01\x7f"), "tab\tok");                 // control characters dropped
  EXPECT_EQ(escape("\xce\xb1"), "\xce\xb1");                       // valid 2-byte UTF-8 kept (alpha)
  EXPECT_EQ(escape("x\xff"), "x\xEF\xBF\xBD");                     // stray byte -> U+FFFD
  EXPECT_EQ(escape("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");       // overlong '/' rejected byte by byte
  EXPECT_EQ(escape("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // UTF-16 surrogate
  EXPECT_EQ(escape("\xe2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");       // truncated sequence
}

TEST(HtmlEscape, ShortenCutsOnCharacterBoundaries) {
  using rpl::report::html::shorten;
  EXPECT_EQ(shorten("kernel", 10), "kernel");
  EXPECT_EQ(shorten("abcdefghij", 8), "abcde...");  // 8 - 3 = 5 bytes kept
  // "αααα" is 8 bytes (CE B1 x4); width 6 keeps 3 bytes, byte 3 is inside the second alpha -> 2 bytes.
  EXPECT_EQ(shorten("\xce\xb1\xce\xb1\xce\xb1\xce\xb1", 6), "\xce\xb1...");
}

TEST(HtmlFormat, DurationsRatesAndBandwidths) {
  using namespace rpl::report::html;
  EXPECT_EQ(duration(850), "850 ns");
  EXPECT_EQ(duration(12'345), "12.3 us");
  EXPECT_EQ(duration(4'560'000), "4.56 ms");
  EXPECT_EQ(duration(1.5e9), "1.50 s");
  EXPECT_EQ(percent(0.1234), "12.3%");
  EXPECT_EQ(rate(512), "512 GFLOP/s");
  EXPECT_EQ(rate(163400), "163.4 TFLOP/s");
  EXPECT_EQ(bandwidth(900), "900 GB/s");
  EXPECT_EQ(bandwidth(5300), "5.30 TB/s");
}

TEST(HtmlReport, HasEverySectionWithTheExpectedElements) {
  auto r = visual_sample_results();
  auto roofline = visual_sample_roofline();
  std::string html = render(r, &roofline);

  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(check_balanced(html), "");
  // Roofline: 3 plottable points of 4 (no_flops_kernel has AI 0), one above the roof; 2 memory roofs, 2
  // compute roofs; ridges: both compute roofs against L2 (the fastest), HBM against FP32 (the top) = 3.
  EXPECT_EQ(count(html, "<svg id=\"roofline\""), 1u);
  EXPECT_EQ(count(html, "<circle class=\"point"), 3u);
  EXPECT_EQ(count(html, "<circle class=\"point b-memory above-roof\""), 1u);
  EXPECT_EQ(count(html, "<line class=\"roof memory\""), 2u);
  EXPECT_EQ(count(html, "<line class=\"roof compute\""), 2u);
  EXPECT_EQ(count(html, "<rect class=\"ridge\""), 3u);
  EXPECT_NE(html.find("1 kernel(s) not plotted"), std::string::npos);
  // Ridge of FP32 against L2: 163400 / 14000 = 11.67 FLOP/byte.
  EXPECT_NE(html.find("ridge 11.7"), std::string::npos);
  // Timeline: 3 lanes (streams 1, 2 of pid 100; stream 7 of pid 200).
  EXPECT_EQ(count(html, "<g class=\"lane\""), 3u);
  EXPECT_NE(html.find("data-process=\"100\" data-lane=\"stream 2 (copies)\""), std::string::npos);
  EXPECT_NE(html.find("data-process=\"200\" data-lane=\"stream 7\""), std::string::npos);
  // 450 ns over 1200 px: every node is wider than a pixel, so nothing merges: 8 work rectangles, 4 path
  // outlines (d0, d1, d2 on stream 1; d3 on stream 2), 2 cross-stream steps (d1 -> d3 -> d2).
  EXPECT_EQ(count(html, "<rect class=\"k"), 7u);
  EXPECT_EQ(count(html, "<rect class=\"cpy\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"cp\""), 4u);
  EXPECT_EQ(count(html, "<line class=\"cp-edge\""), 2u);
  EXPECT_EQ(count(html, " m\""), 0u);  // no merged rectangle
  // Tables.
  for (const char* id : {"top-kernels", "kernel-resources", "critical-path", "what-if", "findings"})
    EXPECT_EQ(count(html, std::string("<table id=\"") + id + "\""), 1u) << id;
  // gemm's occupancy, in the resources table (the kernels table keeps to the timing: 14 columns fit 1024 px).
  EXPECT_NE(html.find(">37.5%</td><td class=\"text\">VGPRs</td>"), std::string::npos);
  // Critical-path fraction of gemm: 200 / 450 = 44.4%.
  EXPECT_NE(html.find("<td>44.4%</td><td>2</td></tr>"), std::string::npos);
  // Findings: reduce is unstable (CV 0.58 > 0.10, 34% of GPU time), gemm's occupancy is low, scale is
  // above the roof.
  EXPECT_NE(html.find("unstable_kernel"), std::string::npos);
  EXPECT_NE(html.find("low_occupancy"), std::string::npos);
  EXPECT_NE(html.find("above_roof"), std::string::npos);
  // They lead the page (before the roofline and the tables they rest on), each with its remedy.
  EXPECT_LT(html.find("<h2>Findings</h2>"), html.find("<h2>Roofline</h2>"));
  EXPECT_EQ(count(html, "<td class=\"text remedy\">"), count(html, "<td class=\"text tag sev-"));
  EXPECT_NE(html.find("use fewer registers per thread"), std::string::npos);  // low_occupancy's remedy
}

TEST(HtmlReport, EscapesEveryKernelName) {
  auto r = visual_sample_results();
  auto roofline = visual_sample_roofline();
  std::string html = render(r, &roofline);
  EXPECT_EQ(html.find("gemm<float"), std::string::npos);
  EXPECT_EQ(html.find("reduce<A&B>"), std::string::npos);
  EXPECT_EQ(html.find("A&B"), std::string::npos);
  EXPECT_GE(count(html, "gemm&lt;float, 128&gt;"), 5u);  // tables, legend, roofline, tooltips
  EXPECT_GE(count(html, "reduce&lt;A&amp;B&gt;"), 5u);
}

TEST(HtmlReport, HostileNamesCannotInjectMarkup) {
  auto r = visual_sample_results();
  std::string evil = "</title></text><script>alert(1)</script>\"' \xff";
  r.trace.strings = rpl::StringTable();
  for (auto& s : r.trace.symbols) s.display_name = r.trace.strings.intern(evil);
  r.trace.copies[0].kind = r.trace.strings.intern("<copy>");
  r.stats.kernels[0].name = evil;
  r.dag.contributions[0].name = evil;
  r.what_if[0].spec.pattern = evil;
  r.what_if[0].matched_kernels = {evil};
  r.trace.processes[0].command = evil;
  auto roofline = visual_sample_roofline();
  roofline.points[0].kernel = evil;
  std::string html = render(r, &roofline);
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<copy>"), std::string::npos);
  EXPECT_NE(html.find("&lt;/title&gt;&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39; \xEF\xBF\xBD"),
            std::string::npos);
}

// profile --deep on AMD: the thread trace's costliest ISA lines and the traced waves, most stalled first, with
// their stall split; the ISA text escaped; at most 64 waves drawn, the rest counted.
TEST(HtmlReport, ShowsThreadTraceHotLinesAndWaveStalls) {
  auto r = visual_sample_results();
  EXPECT_EQ(render(r, nullptr).find("Thread trace (ATT)"), std::string::npos);  // no ATT data: no section
  r.diagnosis.resize(r.stats.kernels.size());
  r.diagnosis[1].deep = rpl::test::att_sample_deep(70);
  const std::string html = render(r, nullptr);
  EXPECT_EQ(check_balanced(html), "");
  const auto section = html.find("<h2>Thread trace (ATT)</h2>");
  ASSERT_NE(section, std::string::npos);
  EXPECT_NE(html.find("<h3 title=\"reduce&lt;A&amp;B&gt;\">", section), std::string::npos);
  EXPECT_EQ(count(html, "<table class=\"att-lines\">"), 1u);
  EXPECT_EQ(count(html, "<table class=\"att-waves\">"), 1u);
  // The costliest line first, its text escaped, its source without the directories.
  const auto first = html.find("<td class=\"text\"><code>v_fma_f32 v1, v2, v3 // &lt;a&amp;b&gt;</code></td>"
                               "<td class=\"text\">kernel.hip:42</td>");
  ASSERT_NE(first, std::string::npos) << html.substr(section);
  EXPECT_LT(first, html.find("<code>global_load_dword v4, v[6:7], off</code>"));
  EXPECT_NE(html.find("<td>52.0%</td><td>4096</td><td>52.0k</td><td>31.0k</td><td>0</td>", section), std::string::npos);
  // 70 waves: 64 rows, the most stalled (stall 90%: waves 9, 19, ..., 69) first, in the trace's order.
  const auto waves = html.substr(html.find("<table class=\"att-waves\">"));
  EXPECT_EQ(count(waves.substr(0, waves.find("</table>")), "<tr><td>"), 64u);
  EXPECT_EQ(waves.find("<tr><td>0</td><td>1</td><td>1</td><td>1</td><td>9</td>"), waves.find("<tr><td>"));
  EXPECT_NE(waves.find("<td>90.0%</td><td>512</td><td class=\"text\">VMEM 70%, WAIT 30%</td>"), std::string::npos);
  EXPECT_NE(waves.find("6 more waves, less stalled, in analysis.json."), std::string::npos);
}

// The findings table shows the findings the caller built (analysis.json's), not a second computation of them.
TEST(HtmlReport, FindingsTableShowsTheFindingsItIsGiven) {
  auto r = visual_sample_results();
  const nlohmann::json given = nlohmann::json::array(
      {{{"id", "probe_finding"}, {"severity", "info"}, {"kernel", nullptr}, {"message", "given & escaped"},
        {"remedy", "none"}}});
  rpl::report::HtmlOptions options;
  options.findings = &given;
  const std::string html = rpl::report::render_html_report(r, nullptr, options);
  const auto table = html.substr(html.find("<table id=\"findings\""));
  EXPECT_EQ(count(table.substr(0, table.find("</table>")), "<tr><td"), 1u);
  EXPECT_NE(table.find(">probe_finding</td>"), std::string::npos);
  EXPECT_NE(table.find("given &amp; escaped"), std::string::npos);
}

TEST(HtmlReport, IsSelfContained) {
  auto r = visual_sample_results();
  auto roofline = visual_sample_roofline();
  std::string html = render(r, &roofline);
  std::string lower = html;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(lower.find("http"), std::string::npos);
  EXPECT_EQ(lower.find("//"), std::string::npos);  // no protocol-relative reference either
  EXPECT_EQ(lower.find("url("), std::string::npos);
  EXPECT_EQ(lower.find("@import"), std::string::npos);
  EXPECT_EQ(lower.find("<script"), std::string::npos);
  EXPECT_EQ(lower.find("<link"), std::string::npos);
  EXPECT_EQ(lower.find("src="), std::string::npos);
}

TEST(HtmlReport, WithoutCounterDataSaysSoInsteadOfTheChart) {
  auto r = visual_sample_results();
  for (const rpl::report::RooflineView* view : {static_cast<const rpl::report::RooflineView*>(nullptr)}) {
    std::string html = render(r, view);
    EXPECT_EQ(html.find("<svg id=\"roofline\""), std::string::npos);
    EXPECT_NE(html.find("No roofline"), std::string::npos);
    EXPECT_EQ(check_balanced(html), "");
  }
  rpl::report::RooflineView no_points = visual_sample_roofline();
  no_points.points.clear();
  no_points.note = "counters <SQ_INSTS_VALU> missing";
  std::string html = render(r, &no_points);
  EXPECT_EQ(html.find("<svg id=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("No roofline"), std::string::npos);
  EXPECT_NE(html.find("counters &lt;SQ_INSTS_VALU&gt; missing"), std::string::npos);
}

// Kernels with bytes but no FLOPs (integer work) are placed by their bandwidth, and a kernel that is neither
// says why; "no roofline" is reserved for traces with nothing to place.
TEST(HtmlReport, KernelsWithoutFlopsArePlacedByBandwidthAndUndrawnOnesSayWhy) {
  auto r = visual_sample_results();
  rpl::report::RooflineView view = visual_sample_roofline();
  view.points.clear();
  view.bandwidth_only = {{"stage_a1(long long*, int)", "HBM", 1200, 3350, 0.4}, {"stage_b1<int>", "L2", 30, 0, 0.1}};
  view.undrawn = {{"copy_kernel", "no FLOPs and no device-memory bytes were counted"}};
  std::string html = render(r, &view);
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_EQ(html.find("No roofline"), std::string::npos);
  EXPECT_EQ(html.find("<svg id=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("id=\"roofline-no-flops\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"bandwidth-bars\""), std::string::npos);
  EXPECT_EQ(count(html, "<rect class=\"bar b-memory\""), 2u);
  EXPECT_NE(html.find("HBM 1.20 TB/s (35.8%)"), std::string::npos);  // 1200 / 3350 of the ceiling
  EXPECT_NE(html.find("L2 30 GB/s</text>"), std::string::npos);       // no L2 ceiling: no share
  EXPECT_NE(html.find("ceiling 3.35 TB/s"), std::string::npos);
  EXPECT_NE(html.find("stage_b1&lt;int&gt;"), std::string::npos);
  EXPECT_NE(html.find("<b>copy_kernel</b>: no FLOPs and no device-memory bytes were counted"), std::string::npos);
  // With points as well, both charts are drawn.
  view.points = visual_sample_roofline().points;
  html = render(r, &view);
  EXPECT_NE(html.find("<svg id=\"roofline\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"bandwidth-bars\""), std::string::npos);
  EXPECT_EQ(html.find("roofline-no-flops"), std::string::npos);
}

TEST(HtmlReport, RooflineWithoutCeilingsStillPlotsThePoints) {
  auto r = visual_sample_results();
  auto roofline = visual_sample_roofline();
  roofline.compute.clear();
  roofline.memory.clear();
  std::string html = render(r, &roofline);
  EXPECT_EQ(count(html, "<circle class=\"point"), 3u);
  EXPECT_EQ(count(html, "<line class=\"roof"), 0u);
  EXPECT_NE(html.find("ceilings incomplete"), std::string::npos);
}

TEST(HtmlReport, EmptyTraceAndEmptyResultsRender) {
  rpl::app::AnalyzeResults r;
  std::string html = render(r, nullptr);
  EXPECT_EQ(check_balanced(html), "");
  EXPECT_NE(html.find("no dispatches or copies"), std::string::npos);
  EXPECT_EQ(html.find("<svg id=\"timeline\""), std::string::npos);
}

TEST(HtmlReport, WorkWithoutStreamGoesToQueueAndUnassignedLanes) {
  auto r = visual_sample_results();
  r.trace.queues.push_back({1, 5, "q"});
  r.trace.dispatches.edit(4)->stream = rpl::kNoIndex;  // d4: queue 5 of process B
  r.trace.dispatches.edit(4)->queue = 0;
  r.trace.dispatches.edit(5)->stream = rpl::kNoIndex;  // d5: neither
  std::string html = render(r, nullptr);
  EXPECT_EQ(count(html, "<g class=\"lane\""), 5u);
  EXPECT_NE(html.find("data-lane=\"queue 5 (q)\""), std::string::npos);
  EXPECT_NE(html.find("data-lane=\"no stream\""), std::string::npos);
}

// 1M dispatches on 4 streams, the critical path hopping between two of them at every node: the page stays
// small because each lane is drawn with at most one rectangle per pixel column.
TEST(HtmlReport, MillionDispatchesGiveABoundedPage) {
  const std::size_t n = 1'000'000;
  rpl::app::AnalyzeResults r = rpl::test::many_dispatches_results(n);
  for (std::size_t i = 0; i < n; i += 4) {
    r.dag.path.push_back({rpl::analysis::NodeKind::Dispatch, static_cast<rpl::Index>(i + (i / 4) % 2)});
  }
  rpl::report::HtmlOptions options;
  auto t0 = std::chrono::steady_clock::now();
  std::string html = rpl::report::render_html_report(r, nullptr, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("render_seconds", std::to_string(seconds));
  RecordProperty("bytes", std::to_string(html.size()));
  EXPECT_LE(html.size(), 5u * 1024 * 1024);
  // Each of the 4 lanes: at most width + 1 = 1201 work rectangles; path outlines on streams 0 and 1 only.
  std::size_t work = count(html, "<rect class=\"k"), outlines = count(html, "<rect class=\"cp\"");
  EXPECT_LE(work, 4u * 1201);
  EXPECT_GE(work, 4u * 1000);  // and still a picture: about one per column
  EXPECT_LE(outlines, 2u * 1201);
  EXPECT_LE(count(html, "<line class=\"cp-edge\""), options.max_path_edges);
  EXPECT_NE(html.find("cross-stream steps not drawn"), std::string::npos);
  EXPECT_EQ(check_balanced(html), "");
}

TEST(HtmlReport, WritesTheFileAtomicallyAndReportsFailures) {
  TempDir dir;
  auto r = visual_sample_results();
  std::string path = dir.file("report.html");
  rpl::report::write_html_report(path, r, nullptr, {});
  EXPECT_EQ(rpl::test::read_file(path), render(r, nullptr));
  try {
    rpl::report::write_html_report(dir.file("missing/dir/report.html"), r, nullptr, {});
    FAIL() << "no error for a missing directory";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::OutputFailed);
  }
}

// ---- Headless Chromium ----

namespace {

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

// Runs Chromium headless with the network features off; `action` is --dump-dom or --screenshot=...
int run_chromium(const std::string& chromium, const TempDir& dir, const std::string& action, const std::string& url,
                 const std::string& stdout_file) {
  std::string cmd = "timeout 120 " + chromium +
                    " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                    " --disable-background-networking --disable-component-update --disable-sync"
                    " --user-data-dir=" + dir.file("profile") + " " + action + " '" + url + "' >'" + stdout_file +
                    "' 2>'" + dir.file("chromium.err") + "'";
  return std::system(cmd.c_str());
}

}  // namespace

TEST(HtmlReportInChromium, DomHasTheChartsLanesAndEscapedTables) {
  std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium): DOM check skipped";
  TempDir dir;
  auto r = visual_sample_results();
  auto roofline = visual_sample_roofline();
  std::string page = dir.file("report.html");
  rpl::report::write_html_report(page, r, &roofline, {});
  std::string dom_file = dir.file("dom.html");
  ASSERT_EQ(run_chromium(chromium, dir, "--dump-dom", "file://" + page, dom_file), 0)
      << rpl::test::read_file(dir.file("chromium.err"));
  std::string dom = rpl::test::read_file(dom_file);
  ASSERT_FALSE(dom.empty());
  // Chromium re-serialises the parsed DOM: what it built, not what we wrote.
  EXPECT_EQ(count(dom, "<svg id=\"roofline\""), 1u);
  EXPECT_EQ(count(dom, "<circle class=\"point"), 3u);
  EXPECT_EQ(count(dom, "<circle class=\"point b-memory above-roof\""), 1u);
  EXPECT_EQ(count(dom, "<svg id=\"timeline\""), 1u);
  EXPECT_EQ(count(dom, "<g class=\"lane\""), 3u);
  EXPECT_EQ(count(dom, "<rect class=\"cp\""), 4u);
  EXPECT_EQ(count(dom, "<line class=\"cp-edge\""), 2u);
  // The names were parsed as text: no element was made of "<float, 128>" or "<A&B>".
  EXPECT_EQ(dom.find("<float"), std::string::npos);
  EXPECT_EQ(dom.find("<a&"), std::string::npos);
  EXPECT_EQ(dom.find("<A&"), std::string::npos);
  std::regex kernel_row(R"(<table id="top-kernels">[\s\S]*gemm&lt;float, 128&gt;[\s\S]*reduce&lt;A&amp;B&gt;[\s\S]*</table>)");
  EXPECT_TRUE(std::regex_search(dom, kernel_row));
  // Every table made it into the DOM with its rows: 3 kernels, 2 contributors, 1 scenario.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex(R"(<table id="top-kernels">[\s\S]*?</table>)")));
  EXPECT_EQ(count(m.str(), "<tr"), 4u);  // header + 3
  ASSERT_TRUE(std::regex_search(dom, m, std::regex(R"(<table id="critical-path">[\s\S]*?</table>)")));
  EXPECT_EQ(count(m.str(), "<tr"), 3u);
  ASSERT_TRUE(std::regex_search(dom, m, std::regex(R"(<table id="what-if">[\s\S]*?</table>)")));
  EXPECT_EQ(count(m.str(), "<tr"), 2u);
}

TEST(HtmlReportInChromium, ScreenshotIsNotBlank) {
  std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (apt-get install chromium): screenshot skipped";
  TempDir dir;
  auto r = visual_sample_results();
  auto roofline = visual_sample_roofline();
  std::string page = dir.file("report.html");
  rpl::report::write_html_report(page, r, &roofline, {});
  std::string png = dir.file("report.png");
  ASSERT_EQ(run_chromium(chromium, dir, "--screenshot=" + png + " --window-size=1400,1800 --hide-scrollbars",
                         "file://" + page, dir.file("screenshot.out")),
            0)
      << rpl::test::read_file(dir.file("chromium.err"));
  ASSERT_TRUE(fs::exists(png));
  std::string bytes = rpl::test::read_file(png);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  // A blank 1400x1800 page compresses to a few KB; charts, text and tables give far more.
  EXPECT_GT(bytes.size(), 40u * 1024) << "screenshot looks blank";
  if (const char* keep = std::getenv("RPL_KEEP_SCREENSHOT")) fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}
