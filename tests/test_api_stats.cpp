// Per-API-call statistics (analysis/api_stats) over traces built in memory, and their report forms.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/api_stats.hpp"
#include "report/api_stats_report.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/tmpdir.hpp"

namespace rpl::analysis {
namespace {

void add_call(Trace& t, const std::string& name, const std::string& category, TimeNs start, TimeNs duration) {
  ApiCall c;
  c.start = start;
  c.end = start + duration;
  c.name = t.strings.intern(name);
  c.category = t.strings.intern(category);
  t.api_calls.push_back(c);
}

const ApiCallStats& find(const ApiStatsResult& r, const std::string& name) {
  for (const auto& c : r.calls)
    if (c.name == name) return c;
  throw std::runtime_error("no call " + name);
}

TEST(ApiCategory, ApiDomainsButNotMarkers) {
  EXPECT_TRUE(is_api_category("HIP_RUNTIME_API_EXT"));
  EXPECT_TRUE(is_api_category("HIP_RUNTIME_API"));
  EXPECT_TRUE(is_api_category("HSA_CORE_API"));
  EXPECT_TRUE(is_api_category("CUDA_RUNTIME_API"));
  EXPECT_TRUE(is_api_category("CUDA_DRIVER_API"));
  EXPECT_TRUE(is_api_category("RCCL_API"));
  EXPECT_FALSE(is_api_category("MARKER_CORE_API"));
  EXPECT_FALSE(is_api_category("MARKER_CORE_RANGE_API"));
  EXPECT_FALSE(is_api_category("KERNEL_DISPATCH"));
  EXPECT_FALSE(is_api_category(""));
}

TEST(NearestRank, Quantiles) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  EXPECT_EQ(nearest_rank_quantile(v, 0.0), 1);
  EXPECT_EQ(nearest_rank_quantile(v, 0.5), 50);
  EXPECT_EQ(nearest_rank_quantile(v, 0.99), 99);
  EXPECT_EQ(nearest_rank_quantile(v, 1.0), 100);
  const std::vector<double> one{7};
  EXPECT_EQ(nearest_rank_quantile(one, 0.5), 7);
  EXPECT_EQ(nearest_rank_quantile(one, 0.99), 7);
  const std::vector<double> four{1, 2, 3, 4};
  EXPECT_EQ(nearest_rank_quantile(four, 0.5), 2);   // ceil(2) = rank 2
  EXPECT_EQ(nearest_rank_quantile(four, 0.51), 3);  // ceil(2.04) = rank 3
  EXPECT_EQ(nearest_rank_quantile(four, 0.99), 4);
}

TEST(ApiStats, CountTotalMeanQuantilesPerNameAndDomain) {
  test::InMemoryTrace m;
  Trace& t = m.trace;
  // hipLaunchKernel: 1..100 us, shuffled order; p50 = 50 us, p99 = 99 us.
  for (int i = 0; i < 100; ++i) add_call(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 1000 * i, ((i * 37) % 100 + 1) * 1000);
  add_call(t, "hipMemcpy", "HIP_RUNTIME_API_EXT", 0, 500000);
  add_call(t, "hipMemcpy", "HIP_RUNTIME_API_EXT", 0, 100000);
  add_call(t, "hsa_queue_create", "HSA_CORE_API", 0, 2000);
  add_call(t, "step", "MARKER_CORE_API", 0, 9000000);  // a marker: not an API call
  const ApiStatsResult r = compute_api_stats(t);
  ASSERT_EQ(r.calls.size(), 3u);
  EXPECT_EQ(r.markers_excluded, 1u);
  EXPECT_EQ(r.total_calls, 103u);

  const auto& launch = find(r, "hipLaunchKernel");
  EXPECT_EQ(launch.count, 100u);
  EXPECT_DOUBLE_EQ(launch.total_ns, 5050.0 * 1000);
  EXPECT_DOUBLE_EQ(launch.mean_ns, 50500);
  EXPECT_DOUBLE_EQ(launch.p50_ns, 50000);
  EXPECT_DOUBLE_EQ(launch.p99_ns, 99000);
  EXPECT_DOUBLE_EQ(launch.min_ns, 1000);
  EXPECT_DOUBLE_EQ(launch.max_ns, 100000);
  EXPECT_EQ(launch.category, "HIP_RUNTIME_API_EXT");

  const auto& copy = find(r, "hipMemcpy");
  EXPECT_EQ(copy.count, 2u);
  EXPECT_DOUBLE_EQ(copy.p50_ns, 100000);
  EXPECT_DOUBLE_EQ(copy.p99_ns, 500000);
  EXPECT_DOUBLE_EQ(copy.mean_ns, 300000);

  // Ordered by total time; the shares add up to 100 %.
  EXPECT_EQ(r.calls[0].name, "hipLaunchKernel");
  EXPECT_EQ(r.calls[1].name, "hipMemcpy");
  EXPECT_EQ(r.calls[2].name, "hsa_queue_create");
  EXPECT_DOUBLE_EQ(r.total_ns, 5050000.0 + 600000 + 2000);
  double sum = 0;
  for (const auto& c : r.calls) sum += c.percent;
  EXPECT_NEAR(sum, 100.0, 1e-9);
  EXPECT_NEAR(launch.percent, 100.0 * 5050000 / 5652000, 1e-9);
}

TEST(ApiStats, SameNameInTwoDomainsIsTwoRows) {
  Trace t;
  add_call(t, "cuLaunchKernel", "CUDA_DRIVER_API", 0, 10);
  add_call(t, "cuLaunchKernel", "CUDA_RUNTIME_API", 0, 20);
  const ApiStatsResult r = compute_api_stats(t);
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].category, "CUDA_RUNTIME_API");
  EXPECT_EQ(r.calls[1].category, "CUDA_DRIVER_API");
}

TEST(ApiStats, EmptyTraceHasNoRowsAndSaysSo) {
  Trace t;
  add_call(t, "range", "MARKER_CORE_API", 0, 10);
  const ApiStatsResult r = compute_api_stats(t);
  EXPECT_TRUE(r.calls.empty());
  EXPECT_EQ(r.total_ns, 0);
  EXPECT_EQ(r.markers_excluded, 1u);
  EXPECT_NE(report::api_stats_terminal(r, 10, 80).find("none recorded"), std::string::npos);
}

TEST(ApiStatsReport, JsonTerminalAndHtmlCarryTheNumbers) {
  Trace t;
  add_call(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 0, 3000);
  add_call(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 0, 5000);
  add_call(t, "<script>", "HIP_RUNTIME_API_EXT", 0, 1000);
  const ApiStatsResult r = compute_api_stats(t);
  const auto j = report::api_stats_json(r);
  EXPECT_EQ(j["total_calls"], 3);
  EXPECT_EQ(j["calls"][0]["name"], "hipLaunchKernel");
  EXPECT_EQ(j["calls"][0]["count"], 2);
  EXPECT_EQ(j["calls"][0]["p50_ns"], 3000.0);
  EXPECT_EQ(j["calls"][0]["p99_ns"], 5000.0);
  EXPECT_EQ(j["calls"][0]["domain"], "HIP_RUNTIME_API_EXT");
  const std::string text = report::api_stats_terminal(r, 1, 120);
  EXPECT_NE(text.find("hipLaunchKernel"), std::string::npos) << text;
  EXPECT_NE(text.find("4.00"), std::string::npos) << text;  // mean 4 us
  EXPECT_NE(text.find("1 more call names"), std::string::npos) << text;
  // At 80 columns the table still fits: the least telling columns give way.
  const std::string narrow = report::api_stats_terminal(r, 10, 80);
  for (std::size_t at = 0, end; at < narrow.size(); at = end + 1) {
    end = narrow.find('\n', at);
    EXPECT_LE(end - at, 80u) << narrow;
  }
  EXPECT_NE(narrow.find("hipLaunchKernel"), std::string::npos) << narrow;
  const std::string html = report::api_stats_html(r, 10);
  EXPECT_NE(html.find("id=\"api-stats\""), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace rpl::analysis

// `analyze --api-stats` on a rocpd fixture: profile.json carries a schema-valid "api_stats", the terminal
// summary and report.html show the table; without the flag there is none.
TEST(ApiStatsCli, AnalyzeApiStatsOnARocpdTrace) {
  using namespace rpl::test;
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", db, "--api-stats", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
  auto profile = nlohmann::json::parse(read_file(dir.file("out/profile.json")));
  ASSERT_TRUE(profile.contains("api_stats"));
  bool launch = false;
  for (const auto& c : profile["api_stats"]["calls"])
    if (c["name"] == "hipLaunchKernel") {
      launch = true;
      EXPECT_GE(c["count"].get<int>(), 1);
      EXPECT_LE(c["min_ns"].get<double>(), c["p50_ns"].get<double>());
      EXPECT_LE(c["p50_ns"].get<double>(), c["p99_ns"].get<double>());
      EXPECT_LE(c["p99_ns"].get<double>(), c["max_ns"].get<double>());
    }
  EXPECT_TRUE(launch) << profile["api_stats"].dump();
  EXPECT_NE(r.out.find("API calls ("), std::string::npos) << r.out;
  EXPECT_NE(read_file(dir.file("out/report.html")).find("id=\"api-stats\""), std::string::npos);

  auto plain = run_cli({"analyze", db, "-o", dir.file("plain")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(nlohmann::json::parse(read_file(dir.file("plain/profile.json"))).contains("api_stats"));
  EXPECT_EQ(plain.out.find("API calls ("), std::string::npos);
}
