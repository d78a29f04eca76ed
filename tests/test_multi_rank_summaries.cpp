// Distributed jobs (issue 29): --quiet prints the quantity it prints for one process (the summed kernel time),
// summed over the ranks; the memory copies and NVTX / ROCTx ranges of every rank in multi_rank.json (schema),
// the rank summary file, the terminal and multi_rank.html, with the slowest and fastest rank of each range.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::test;
using nlohmann::json;

namespace {

// A rank: the default fixture (one H2D and one D2H copy, 7 kernels) with `steps` ROCTx ranges "step" around its
// launches (each `step_ns` long on the host) and its kernels `scale` times as long.
std::string write_rank(const std::string& path, int64_t pid, int steps, TimeNs step_ns, double scale) {
  FixtureSpec spec;
  spec.pid = pid;
  spec.guid = "";
  FixtureRows rows = fixture_rows(spec);
  for (auto& d : rows.dispatches) d.end = d.start + static_cast<TimeNs>(static_cast<double>(d.end - d.start) * scale);
  for (int i = 0; i < steps; ++i) {
    const TimeNs start = spec.t0 + 19000 + 20000 * i;  // around launches 2 + 2i and 3 + 2i
    add_marker_range(rows, rows.threads[0].tid, "step", start, start + step_ns);
  }
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_fixture(rows, path);
  return path;
}

double quiet_ms(const std::vector<std::string>& args) {
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return std::stod(r.out);
}

}  // namespace

TEST(MultiRankSummaries, QuietCopiesAndRangesAcrossRanks) {
  TempDir dir;
  const std::string r0 = write_rank(dir.file("job/rank0.db"), 5100, 1, 15000, 1.0);
  const std::string r1 = write_rank(dir.file("job/rank1.db"), 5101, 2, 19000, 1.5);
  // --quiet: one process prints its summed kernel time; the job prints the sum over its ranks.
  const double one = quiet_ms({"analyze", r0, "-o", dir.file("o0"), "--quiet"});
  const double two = quiet_ms({"analyze", r1, "-o", dir.file("o1"), "--quiet"});
  const double job = quiet_ms({"analyze", dir.file("job"), "-o", dir.file("oj"), "--quiet"});
  EXPECT_GT(two, one);
  EXPECT_NEAR(job, one + two, 2e-6);

  auto r = run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("multi-rank", dir.file("out/multi_rank.json")), "");
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], "1.2");
  ASSERT_EQ(doc["ranks"].size(), 2u);
  EXPECT_NEAR(doc["ranks"][0]["kernel_time_ms"].get<double>(), one, 2e-6);
  EXPECT_NEAR(doc["ranks"][1]["kernel_time_ms"].get<double>(), two, 2e-6);
  std::map<std::string, json> copies;
  for (const auto& c : doc["copy_summary"]) copies[c["kind"].get<std::string>()] = c;
  EXPECT_EQ(copies["MEMORY_COPY_HOST_TO_DEVICE"]["ranks"], 2);
  EXPECT_EQ(copies["MEMORY_COPY_HOST_TO_DEVICE"]["count"], 2);
  EXPECT_EQ(copies["MEMORY_COPY_HOST_TO_DEVICE"]["bytes"], 2 << 20);
  EXPECT_EQ(copies["MEMORY_COPY_DEVICE_TO_HOST"]["count"], 2);
  ASSERT_EQ(doc["range_summary"].size(), 1u);
  const json step = doc["range_summary"][0];
  EXPECT_EQ(step["name"], "step");
  EXPECT_EQ(step["ranks"], 2);
  EXPECT_EQ(step["count"], 3);
  EXPECT_EQ(step["total_ns"], 15000 + 2 * 19000);
  EXPECT_EQ(step["gpu_kernels"], 2 + 4);  // two launches per step
  EXPECT_GT(step["gpu_busy_ns"].get<int64_t>(), 0);
  EXPECT_EQ(step["slowest_rank"], 1);
  EXPECT_EQ(step["slowest_mean_ns"], 19000.0);
  EXPECT_EQ(step["fastest_rank"], 0);
  EXPECT_EQ(step["fastest_mean_ns"], 15000.0);

  // The same through the rank summary files (the split / merge path).
  std::vector<std::string> merge = {"analyze", "--merge-summaries", "-o", dir.file("merged"), "--json"};
  for (const auto& db : {r0, r1}) {
    const std::string summary = db + ".summary.json";
    ASSERT_EQ(run_cli({"analyze", "--ranks", db, "--rank-summary", summary}).exit_code, 0);
    EXPECT_EQ(validate_against_schema("rank-summary", summary), "");
    merge.push_back(summary);
  }
  r = run_cli(merge);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json merged = json::parse(r.out);
  EXPECT_EQ(merged["range_summary"], doc["range_summary"]);
  EXPECT_EQ(merged["copy_summary"], doc["copy_summary"]);

  // The terminal and the page show them.
  r = run_cli({"analyze", dir.file("job"), "-o", dir.file("out"), "--width", "80"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Memory copies of every rank, by kind"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Ranges (NVTX / ROCTx) of every rank"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("r1 19.0 us"), std::string::npos) << r.out;
  for (std::size_t at = 0, next; (next = r.out.find('\n', at)) != std::string::npos; at = next + 1)
    EXPECT_LE(next - at, 80u) << r.out.substr(at, next - at);
  const std::string page = read_file(dir.file("out/multi_rank.html"));
  EXPECT_NE(page.find("id=\"range-summary\""), std::string::npos);
  EXPECT_NE(page.find("id=\"copy-summary\""), std::string::npos);
}
