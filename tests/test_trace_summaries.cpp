// The memory-copy and range summaries (issue 29): by kind and by name, the numbers a reader checks by hand, and
// through analyze: the terminal tables, analysis.json (schema-checked) and the CSV files, which agree with the
// trace's own counts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include <sstream>

#include "analysis/trace_summaries.hpp"
#include "testing/cli.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::test;

TEST(TraceSummaries, CopiesByKindWithBytesAndBandwidth) {
  InMemoryTrace t;
  t.add_process(1);
  t.add_copy(0, 1000).bytes = 4000;     // 4 GB/s
  t.add_copy(2000, 5000).bytes = 2000;
  MemoryCopy& d2h = t.add_copy(6000, 6500);
  d2h.kind = t.trace.strings.intern("MEMORY_COPY_DEVICE_TO_HOST");
  d2h.bytes = 500;
  const auto s = analysis::copy_summary(t.trace);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].kind, "MEMORY_COPY_HOST_TO_DEVICE");  // the longest total first
  EXPECT_EQ(s[0].count, 2u);
  EXPECT_EQ(s[0].bytes, 6000u);
  EXPECT_EQ(s[0].total_ns, 4000);
  EXPECT_EQ(s[0].min_ns, 1000);
  EXPECT_EQ(s[0].max_ns, 3000);
  EXPECT_DOUBLE_EQ(s[0].gbps, 1.5);  // 6000 bytes in 4000 ns
  EXPECT_EQ(s[1].kind, "MEMORY_COPY_DEVICE_TO_HOST");
  EXPECT_DOUBLE_EQ(s[1].gbps, 1.0);
}

TEST(TraceSummaries, RangesAreMarkerCallsByName) {
  InMemoryTrace t;
  t.add_process(1);
  auto call = [&](const char* name, const char* category, TimeNs start, TimeNs end) {
    ApiCall a;
    a.start = start;
    a.end = end;
    a.process = 0;
    a.name = t.trace.strings.intern(name);
    a.category = t.trace.strings.intern(category);
    t.trace.api_calls.push_back(a);
  };
  call("train_step", "MARKER_CORE_API", 0, 1000);
  call("train_step", "MARKER_CORE_API", 2000, 4000);
  call("forward", "MARKER_CORE_API", 0, 500);
  call("hipLaunchKernel", "HIP_RUNTIME_API_EXT", 10, 20);  // not a range
  const auto s = analysis::range_summary(t.trace);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].name, "train_step");
  EXPECT_EQ(s[0].count, 2u);
  EXPECT_EQ(s[0].total_ns, 3000);
  EXPECT_EQ(s[0].min_ns, 1000);
  EXPECT_EQ(s[0].max_ns, 2000);
  EXPECT_EQ(s[1].name, "forward");
}

TEST(TraceSummaries, AnalyzeShowsThemAndWritesCsvThatAgreesWithTheTrace) {
  TempDir dir;
  auto r = run_cli({"analyze", std::string(RPL_SOURCE_DIR) + "/examples/traces/generated-4streams.db", "-o",
                    dir.file("out"), "--width", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Memory copies in the window, by kind"), std::string::npos) << r.out;
  EXPECT_EQ(validate_against_schema("analysis", dir.file("out/analysis.json")), "");
  const auto analysis = nlohmann::json::parse(read_file(dir.file("out/analysis.json")));
  const auto profile = nlohmann::json::parse(read_file(dir.file("out/profile.json")));
  std::size_t copies = 0;
  for (const auto& c : analysis["copy_summary"]) copies += c["count"].get<std::size_t>();
  EXPECT_EQ(copies, profile["timing"]["copy_count"].get<std::size_t>());  // the same window, the same count
  // kernel_stats.csv: rocprofv3 --stats columns, one row per kernel.
  std::istringstream kernels(read_file(dir.file("out/kernel_stats.csv")));
  std::string header, line;
  std::getline(kernels, header);
  EXPECT_EQ(header, "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"");
  std::size_t rows = 0;
  while (std::getline(kernels, line)) ++rows;
  EXPECT_EQ(rows, analysis["summary"]["kernel_count"].get<std::size_t>());
  const std::string copy_csv = read_file(dir.file("out/memory_copy_stats.csv"));
  EXPECT_NE(copy_csv.find(fmt::format("\"MEMORY_COPY_HOST_TO_DEVICE\",{},", copies)), std::string::npos) << copy_csv;
  EXPECT_NE(read_file(dir.file("out/range_stats.csv")).find("\"Name\",\"Calls\""), std::string::npos);
}
