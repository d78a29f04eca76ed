// The memory-copy and range summaries (issue 29): by kind and by name, the numbers a reader checks by hand, and
// with the GPU time of the work launched inside each range (correlation id -> launching call on the range's thread);
// through analyze: the terminal tables, analysis.json (schema-checked) and the CSV files, which agree with the
// trace's own counts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "analysis/trace_summaries.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
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

namespace {

ApiCall& add_api(InMemoryTrace& t, const char* name, const char* category, TimeNs start, TimeNs end, uint32_t thread,
                 int64_t correlation = 0) {
  ApiCall a;
  a.start = start;
  a.end = end;
  a.process = 0;
  a.thread = thread;
  a.correlation_id = correlation;
  a.name = t.trace.strings.intern(name);
  a.category = t.trace.strings.intern(category);
  t.trace.api_calls.push_back(a);
  return t.trace.api_calls.back();
}

}  // namespace

// A range's GPU time is the work whose launching call (same correlation id) the range's thread made between its
// push and pop: not the work another thread launched meanwhile, not the work that merely ran during the range.
TEST(TraceSummaries, RangeGpuTimeIsTheWorkLaunchedInsideOnItsThread) {
  InMemoryTrace t;
  t.add_process(1);
  const Index k = t.add_symbol("gemm");
  add_api(t, "step", "MARKER_CORE_API", 1000, 2000, 7);
  add_api(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 1100, 1200, 7, 1);
  add_api(t, "hsa_dispatch", "HSA_CORE_API", 1110, 1150, 7, 1);  // the driver call under it: one launch
  t.add_dispatch(k, 5000, 9000)->correlation_id = 1;               // runs long after the range's pop
  add_api(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 1300, 1400, 7, 2);
  t.add_dispatch(k, 6000, 11000)->correlation_id = 2;  // overlaps the first on another stream
  add_api(t, "hipMemcpyAsync", "HIP_RUNTIME_API_EXT", 1500, 1600, 7, 3);
  t.add_copy(12000, 12500).correlation_id = 3;
  add_api(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 1500, 1600, 8, 4);  // another thread, inside the time
  t.add_dispatch(k, 1500, 1900)->correlation_id = 4;                        // and running during the range
  add_api(t, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", 2100, 2200, 7, 5);  // after the pop
  t.add_dispatch(k, 13000, 14000)->correlation_id = 5;
  const auto s = analysis::range_summary(t.trace);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].total_ns, 1000);   // host time
  EXPECT_EQ(s[0].gpu_kernels, 2u);  // correlation 1 once (runtime + driver call), correlation 2
  EXPECT_EQ(s[0].gpu_copies, 1u);
  EXPECT_EQ(s[0].gpu_busy_ns, 6000 + 500);  // [5000, 11000) and [12000, 12500)
  EXPECT_EQ(s[0].gpu_span_ns, 12500 - 5000);
}

// Nested ranges each count the work of the ranges inside them; instances add up; a range of unknown thread (0)
// takes every thread of its process; a range with no launch has no GPU time.
TEST(TraceSummaries, NestedRangesAndInstancesAddUp) {
  InMemoryTrace t;
  t.add_process(1);
  const Index k = t.add_symbol("k");
  add_api(t, "epoch", "MARKER_CORE_API", 0, 10000, 7);
  add_api(t, "step", "MARKER_CORE_API", 100, 4000, 7);
  add_api(t, "step", "MARKER_CORE_API", 5000, 9000, 7);
  add_api(t, "any_thread", "MARKER_CORE_API", 0, 10000, 0);
  add_api(t, "idle", "MARKER_CORE_API", 9500, 9900, 7);
  add_api(t, "cudaLaunchKernel", "CUDA_RUNTIME_API", 200, 300, 7, 1);
  t.add_dispatch(k, 1000, 2000)->correlation_id = 1;
  add_api(t, "cudaLaunchKernel", "CUDA_RUNTIME_API", 5100, 5200, 9, 2);  // another thread
  t.add_dispatch(k, 6000, 6300)->correlation_id = 2;
  add_api(t, "cudaLaunchKernel", "CUDA_RUNTIME_API", 5300, 5400, 7, 3);
  t.add_dispatch(k, 7000, 7400)->correlation_id = 3;
  std::map<std::string, analysis::RangeSummary> by_name;
  for (const auto& r : analysis::range_summary(t.trace)) by_name[r.name] = r;
  EXPECT_EQ(by_name["epoch"].gpu_kernels, 2u);
  EXPECT_EQ(by_name["epoch"].gpu_busy_ns, 1400);
  EXPECT_EQ(by_name["epoch"].gpu_span_ns, 6400);
  EXPECT_EQ(by_name["step"].count, 2u);
  EXPECT_EQ(by_name["step"].gpu_kernels, 2u);
  EXPECT_EQ(by_name["step"].gpu_busy_ns, 1000 + 400);
  EXPECT_EQ(by_name["step"].gpu_span_ns, 1000 + 400);  // per instance, summed: not 7400 - 1000
  EXPECT_EQ(by_name["any_thread"].gpu_kernels, 3u);
  EXPECT_EQ(by_name["idle"].gpu_kernels, 0u);
  EXPECT_EQ(by_name["idle"].gpu_busy_ns, 0);
}

// A hand-built rocpd database (the default fixture plus ROCTx ranges around its launches) through `analyze`: the
// ranges' GPU time in analysis.json (schema-checked), range_stats.csv and the terminal table.
TEST(TraceSummaries, RangeGpuTimeFromAHandBuiltRocpdDatabase) {
  TempDir dir;
  FixtureRows rows = fixture_rows();
  const TimeNs t0 = FixtureSpec{}.t0;
  const int64_t tid = rows.threads[0].tid;
  rows.threads.push_back({tid + 1, "loader", t0, 0});
  auto range = [&](const char* name, int64_t thread, TimeNs start, TimeNs end) {
    add_marker_range(rows, thread, name, start, end);
  };
  // The fixture's call n runs over [t0 + 10000 n, + 2000): the H2D copy is call 1, the kernels calls 2..7 (i = 0:
  // calls 2 and 3 on streams 1 and 2; i = 1: 4, 5; i = 2: 6, 7), each kernel starting at t0 + 200000 + 50000 i +
  // 5000 (s - 1) for 20000 + 1000 s ns.
  range("upload", tid, t0 + 9000, t0 + 13000);
  range("step", tid, t0 + 39000, t0 + 53000);  // calls 4, 5
  range("step", tid, t0 + 59000, t0 + 73000);  // calls 6, 7
  range("elsewhere", tid + 1, t0 + 39000, t0 + 53000);  // the same time on another thread: no launch
  write_fixture(rows, dir.file("ranges.db"));

  auto r = run_cli({"analyze", dir.file("ranges.db"), "-o", dir.file("out"), "--width", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("analysis", dir.file("out/analysis.json")), "");
  const auto analysis = nlohmann::json::parse(read_file(dir.file("out/analysis.json")));
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& s : analysis["range_summary"]) by_name[s["name"].get<std::string>()] = s;
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_EQ(by_name["step"]["count"], 2);
  EXPECT_EQ(by_name["step"]["total_ns"], 28000);             // host time
  EXPECT_EQ(by_name["step"]["gpu_kernels"], 4);
  EXPECT_EQ(by_name["step"]["gpu_busy_ns"], 2 * 27000);      // per step [s1 start, s2 start + 5000 + 22000)
  EXPECT_EQ(by_name["step"]["gpu_span_ns"], 2 * 27000);
  EXPECT_EQ(by_name["upload"]["gpu_copies"], 1);
  EXPECT_EQ(by_name["upload"]["gpu_busy_ns"], 50000);        // the 1 MiB H2D copy, before the first kernel
  EXPECT_EQ(by_name["elsewhere"]["gpu_kernels"], 0);
  EXPECT_EQ(by_name["elsewhere"]["gpu_busy_ns"], 0);
  EXPECT_NE(read_file(dir.file("out/range_stats.csv")).find("\"step\",2,28000,14000.000,"), std::string::npos);
  EXPECT_NE(read_file(dir.file("out/range_stats.csv")).find(",4,0,54000,54000\n"), std::string::npos)
      << read_file(dir.file("out/range_stats.csv"));
  EXPECT_NE(r.out.find("GPU busy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("54.0 us"), std::string::npos) << r.out;
  for (std::size_t at = 0, next; (next = r.out.find('\n', at)) != std::string::npos; at = next + 1)
    EXPECT_LE(next - at, 100u) << r.out.substr(at, next - at);  // --width 100
}
