// What `analyze` says about the inputs it is given (issue 29): several databases that look like unrelated runs
// are warned about, a directory switching to the analysis across ranks is said, flags that analysis does not use
// are named as ignored, and --no-html leaves no stale page behind. And the other direction: one run's databases
// that belong together get no warning.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/synthetic_job.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::test;

namespace {

std::string fixture(const TempDir& dir, const std::string& file, int64_t pid, const std::string& host, TimeNs t0) {
  FixtureSpec spec;
  spec.file_name = file;
  spec.guid = "";  // a fresh process GUID
  spec.pid = pid;
  spec.hostname = host;
  spec.t0 = t0;
  return make_fixture_db(dir.path(), spec);
}

rocpd::SyntheticJob small_job(const std::string& dir) {
  rocpd::SyntheticJob job;
  job.ranks = 2;
  job.ranks_per_node = 2;
  job.steps = 10;
  job.output_dir = dir;
  return job;
}

}  // namespace

TEST(AnalyzeInputs, UnrelatedRunsAreWarnedAbout) {
  TempDir dir;
  // Two runs on two hosts, ten seconds apart.
  const std::string a = fixture(dir, "a.db", 100, "node01", 1'000'000'000);
  const std::string b = fixture(dir, "b.db", 200, "node02", 11'000'000'000);
  auto r = run_cli({"analyze", a, b, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("from 2 hosts (node01, node02)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("does not overlap in time"), std::string::npos) << r.err;
}

TEST(AnalyzeInputs, ProcessesOfOneRunGetNoWarning) {
  TempDir dir;
  const std::string a = fixture(dir, "a.db", 100, "node01", 1'000'000'000);
  const std::string b = fixture(dir, "b.db", 200, "node01", 1'000'010'000);  // same host, overlapping work
  auto r = run_cli({"analyze", a, b, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

TEST(AnalyzeInputs, DirectorySaysItAnalysesRanksAndNamesIgnoredFlags) {
  TempDir dir;
  rocpd::write_synthetic_job(small_job(dir.file("job")));
  auto r = run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--top", "3", "--kernel", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("is a directory: analysing its databases as the ranks of one distributed job"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--top, --kernel are not used by the analysis across ranks"), std::string::npos) << r.err;
  // Without such flags, no warning.
  auto plain = run_cli({"analyze", dir.file("job"), "-o", dir.file("out")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("warning"), std::string::npos) << plain.err;
}

TEST(AnalyzeInputs, NoHtmlLeavesNoStalePage) {
  TempDir dir;
  rocpd::write_synthetic_job(small_job(dir.file("job")));
  ASSERT_EQ(run_cli({"analyze", dir.file("job"), "-o", dir.file("out")}).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(dir.file("out/multi_rank.html")));
  ASSERT_EQ(run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--no-html"}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out/multi_rank.html")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("out/multi_rank.json")));
  // The same for one process's report.
  const std::string db = make_fixture_db(dir.path());
  ASSERT_EQ(run_cli({"analyze", db, "-o", dir.file("one")}).exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(dir.file("one/report.html")));
  ASSERT_EQ(run_cli({"analyze", db, "-o", dir.file("one"), "--no-html"}).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.file("one/report.html")));
}

TEST(AnalyzeInputs, MultiRankPageHasTheReportStyleATimeAxisCollectivesAndWhatIf) {
  TempDir dir;
  rocpd::write_synthetic_job(small_job(dir.file("job")));
  auto r = run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--what-if", "AllReduce=0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read_file(dir.file("out/multi_rank.html"));
  const std::string single_page = [&] {
    const std::string db = make_fixture_db(dir.path());
    EXPECT_EQ(run_cli({"analyze", db, "-o", dir.file("one")}).exit_code, 0);
    return read_file(dir.file("one/report.html"));
  }();
  // One stylesheet for both pages.
  const auto style = [](const std::string& p) { return p.substr(p.find("<style>"), p.find("</style>") - p.find("<style>")); };
  EXPECT_EQ(style(page), style(single_page));
  EXPECT_NE(page.find("<svg id=\"rank-timelines\""), std::string::npos);
  EXPECT_NE(page.find("class=\"tick\""), std::string::npos);  // the time axis
  EXPECT_NE(page.find("<table id=\"collectives\">"), std::string::npos);
  EXPECT_NE(page.find("ncclDevKernel_AllReduce"), std::string::npos);
  EXPECT_NE(page.find("<table id=\"what-if\">"), std::string::npos);
  EXPECT_NE(page.find("AllReduce=0.5"), std::string::npos);
  // Without a scenario, the section says how to ask for one.
  ASSERT_EQ(run_cli({"analyze", dir.file("job"), "-o", dir.file("plain")}).exit_code, 0);
  EXPECT_NE(read_file(dir.file("plain/multi_rank.html")).find("No scenario was given"), std::string::npos);
}

TEST(AnalyzeInputs, MultiRankTerminalFitsTheWidth) {
  TempDir dir;
  rocpd::write_synthetic_job(small_job(dir.file("job")));
  for (int width : {80, 120}) {
    auto r = run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--width", std::to_string(width)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("timeline"), std::string::npos) << r.out;
    std::size_t start = 0;
    for (std::size_t end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1)
      EXPECT_LE(end - start, static_cast<std::size_t>(width)) << r.out.substr(start, end - start);
  }
}
