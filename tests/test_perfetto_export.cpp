// The Perfetto / Chrome JSON export, parsed back with nlohmann::json: tracks, slices, flows, overlap,
// escaping and number formatting.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "report/perfetto_export.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"
#include "testing/visual_sample.hpp"

using nlohmann::json;
using rpl::test::TempDir;
using rpl::test::visual_sample_results;

namespace {

std::string export_text(const rpl::app::AnalyzeResults& r, const rpl::report::PerfettoOptions& options = {}) {
  TempDir dir;
  std::string path = dir.file("trace.json");
  rpl::report::write_perfetto_file(path, r, options);
  return rpl::test::read_file(path);
}

json export_json(const rpl::app::AnalyzeResults& r, const rpl::report::PerfettoOptions& options = {}) {
  return json::parse(export_text(r, options));
}

std::vector<json> events(const json& doc, const std::string& ph) {
  std::vector<json> out;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

// Microseconds with 3 decimals back to integer nanoseconds.
int64_t ns(const json& us) { return std::llround(us.get<double>() * 1000); }

using Track = std::pair<int64_t, int64_t>;  // pid, tid

std::map<Track, std::string> thread_names(const json& doc) {
  std::map<Track, std::string> out;
  for (const auto& e : events(doc, "M"))
    if (e["name"] == "thread_name") out[{e["pid"], e["tid"]}] = e["args"]["name"];
  return out;
}

std::map<int64_t, std::string> process_names(const json& doc) {
  std::map<int64_t, std::string> out;
  for (const auto& e : events(doc, "M"))
    if (e["name"] == "process_name") out[e["pid"]] = e["args"]["name"];
  return out;
}

// Returns "" when no two slices of one track overlap, else a description.
std::string overlap_on_any_track(const json& doc) {
  std::map<Track, std::vector<std::pair<int64_t, int64_t>>> by_track;
  for (const auto& e : events(doc, "X")) by_track[{e["pid"], e["tid"]}].emplace_back(ns(e["ts"]), ns(e["dur"]));
  for (auto& [track, slices] : by_track) {
    std::sort(slices.begin(), slices.end());
    for (std::size_t i = 1; i < slices.size(); ++i)
      if (slices[i - 1].first + slices[i - 1].second > slices[i].first)
        return "track " + std::to_string(track.first) + "/" + std::to_string(track.second) + " overlaps at " +
               std::to_string(slices[i].first);
  }
  return "";
}

const json* slice_named(const json& doc, const std::string& name, int64_t ts_ns, int64_t pid) {
  static std::vector<json> keep;
  keep = events(doc, "X");
  for (const auto& e : keep)
    if (e["name"] == name && ns(e["ts"]) == ts_ns && e["pid"] == pid) return &e;
  return nullptr;
}

}  // namespace

TEST(PerfettoExport, TopLevelDocument) {
  json doc = export_json(visual_sample_results());
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["otherData"]["trace_start_ns"], "1000000000");  // kBase: the first start (d0 and c0)
  ASSERT_TRUE(doc["traceEvents"].is_array());
}

TEST(PerfettoExport, OneTrackPerStreamGroupedByProcessAndAnOverlapSubTrack) {
  json doc = export_json(visual_sample_results());
  // pid = process index + 1; the critical path is pid 2 + 2 = 4.
  EXPECT_EQ(process_names(doc), (std::map<int64_t, std::string>{{1, "pid 100 (./app --size 4) on node1"},
                                                                 {2, "pid 200 (./helper) on node1"},
                                                                 {4, "Critical path"}}));
  // d6 [100,130] overlaps d5 [70,120] on stream 7: it goes to an overflow track.
  EXPECT_EQ(thread_names(doc), (std::map<Track, std::string>{{{1, 1}, "stream 1"},
                                                             {{1, 2}, "stream 2 (copies)"},
                                                             {{2, 1}, "stream 7"},
                                                             {{2, 2}, "stream 7 · overlap 1"},
                                                             {{4, 1}, "critical path"}}));
}

TEST(PerfettoExport, EverySliceOnceOnItsTrackPlusThePathTrack) {
  json doc = export_json(visual_sample_results());
  std::map<Track, int> per_track;
  for (const auto& e : events(doc, "X")) ++per_track[{e["pid"], e["tid"]}];
  // stream 1: d0 d1 d2; stream 2: c0 d3; stream 7: d4 d5 | d6; path: d0 d1 d3 d2.
  EXPECT_EQ(per_track, (std::map<Track, int>{{{1, 1}, 3}, {{1, 2}, 2}, {{2, 1}, 2}, {{2, 2}, 1}, {{4, 1}, 4}}));
  EXPECT_EQ(overlap_on_any_track(doc), "");
}

TEST(PerfettoExport, SlicesCarryExactTimesAndArgs) {
  auto r = visual_sample_results();
  json doc = export_json(r);
  // d1: [150, 250] ns after the origin -> ts 0.150 us, dur 0.100 us; on the path; slack 0.
  const json* d1 = slice_named(doc, "gemm<float, 128>", 150, 1);
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(ns((*d1)["dur"]), 100);
  EXPECT_EQ((*d1)["cat"], "dispatch");
  EXPECT_EQ((*d1)["tid"], 1);
  EXPECT_EQ((*d1)["args"]["dispatch_id"], 2);
  EXPECT_EQ((*d1)["args"]["correlation_id"], 3);
  EXPECT_EQ((*d1)["args"]["grid"], json({1024, 1, 1}));
  EXPECT_EQ((*d1)["args"]["critical_path"], true);
  // d4: off the path, slack 320 ns.
  const json* d4 = slice_named(doc, "scale", 10, 2);
  ASSERT_NE(d4, nullptr);
  EXPECT_FALSE((*d4)["args"].contains("critical_path"));
  EXPECT_EQ(ns((*d4)["args"]["slack_us"]), 320);
  // The copy.
  const json* c0 = slice_named(doc, "MEMORY_COPY_HOST_TO_DEVICE", 0, 1);
  ASSERT_NE(c0, nullptr);
  EXPECT_EQ((*c0)["cat"], "copy");
  EXPECT_EQ((*c0)["tid"], 2);
  EXPECT_EQ((*c0)["args"]["bytes"], 4096);
  // On the path track, slices say which stream they came from.
  const json* d3_on_path = slice_named(doc, "reduce<A&B>", 260, 4);
  ASSERT_NE(d3_on_path, nullptr);
  EXPECT_EQ((*d3_on_path)["args"]["stream"], "pid 100 (./app --size 4) on node1 / stream 2 (copies)");
}

TEST(PerfettoExport, TimestampsAreMicrosecondsWithThreeDecimals) {
  std::string text = export_text(visual_sample_results());
  EXPECT_NE(text.find(R"("ts":0.150,"dur":0.100)"), std::string::npos);
  EXPECT_NE(text.find(R"("ts":0.000,"dur":0.050)"), std::string::npos);  // the copy
  // Every ts and dur is written with exactly three decimals.
  std::regex number(R"re("(ts|dur)":(-?[0-9.eE+]+))re");
  std::size_t checked = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(std::regex_match((*it)[2].str(), std::regex(R"(-?\d+\.\d{3})"))) << (*it)[0];
    ++checked;
  }
  EXPECT_EQ(checked, 12u * 2 + 2u * 2);  // 12 slices (ts, dur), 4 flow points (ts)
}

TEST(PerfettoExport, LargeTimesKeepNanosecondPrecision) {
  auto r = visual_sample_results();
  // 3 hours after the origin plus 7 ns: 10'800'000'000'007 ns = 10800000000.007 us.
  r.trace.dispatches.edit(2)->start = rpl::test::kBase + 10'800'000'000'007;
  r.trace.dispatches.edit(2)->end = r.trace.dispatches[2].start + 1;
  std::string text = export_text(r);
  EXPECT_NE(text.find(R"("ts":10800000000.007,"dur":0.001)"), std::string::npos);
}

TEST(PerfettoExport, FlowsPairUpAndFollowTheRecordedDependencies) {
  json doc = export_json(visual_sample_results());
  auto starts = events(doc, "s"), finishes = events(doc, "f");
  ASSERT_EQ(starts.size(), 2u);
  ASSERT_EQ(finishes.size(), 2u);
  std::map<int64_t, json> by_id;
  for (const auto& s : starts) by_id[s["id"]] = s;
  for (const auto& f : finishes) {
    ASSERT_TRUE(by_id.count(f["id"])) << "f without s: " << f.dump();
    const json& s = by_id[f["id"]];
    EXPECT_EQ(f["bp"], "e");
    EXPECT_EQ(s["cat"], f["cat"]);
    EXPECT_EQ(s["name"], f["name"]);
    by_id.erase(f["id"]);
  }
  EXPECT_TRUE(by_id.empty()) << "s without f";
  // d1 -> d3 (event wait): from stream 1 (tid 1) in d1 [150,250] (middle 200) to stream 2 (tid 2) in d3
  // [260,380] (middle 320). Both consecutive on the path.
  bool found = false;
  for (const auto& s : starts) {
    if (ns(s["ts"]) != 200) continue;
    found = true;
    EXPECT_EQ(s["pid"], 1);
    EXPECT_EQ(s["tid"], 1);
    std::string name = s["name"];
    EXPECT_EQ(name, std::string(rpl::analysis::to_string(rpl::analysis::EdgeKind::EventWait)) + " (critical path)");
    for (const auto& f : finishes)
      if (f["id"] == s["id"]) {
        EXPECT_EQ(ns(f["ts"]), 320);
        EXPECT_EQ(f["tid"], 2);
      }
  }
  EXPECT_TRUE(found);
}

TEST(PerfettoExport, FlowIdsAreUnique) {
  json doc = export_json(visual_sample_results());
  std::set<int64_t> ids;
  for (const auto& s : events(doc, "s")) EXPECT_TRUE(ids.insert(s["id"].get<int64_t>()).second);
}

TEST(PerfettoExport, OptionsTurnOffFlowsAndThePathTrack) {
  rpl::report::PerfettoOptions options;
  options.flows = false;
  options.critical_path_track = false;
  json doc = export_json(visual_sample_results(), options);
  EXPECT_TRUE(events(doc, "s").empty());
  EXPECT_TRUE(events(doc, "f").empty());
  EXPECT_EQ(events(doc, "X").size(), 8u);
  EXPECT_EQ(process_names(doc).count(4), 0u);
}

TEST(PerfettoExport, NamesAreEscaped) {
  auto r = visual_sample_results();
  std::string tricky = "k\"quoted\"\\path\n<T>&\x01 \xff";
  r.trace.symbols[2].display_name = r.trace.strings.intern(tricky);  // "scale"
  r.trace.streams[2].name = "s\"7";
  r.trace.processes[1].command = "a\\b";
  std::string text = export_text(r);
  json doc = json::parse(text);  // throws on a broken escape
  int seen = 0;
  for (const auto& e : events(doc, "X"))
    if (e["pid"] == 2) {
      EXPECT_EQ(e["name"], "k\"quoted\"\\path\n<T>&\x01 \xEF\xBF\xBD");  // invalid UTF-8 -> U+FFFD
      ++seen;
    }
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(thread_names(doc)[Track(2, 1)], "stream 7 (s\"7)");
  EXPECT_EQ(process_names(doc)[2], "pid 200 (a\\b) on node1");
}

TEST(PerfettoExport, HeavilyOverlappingWorkSplitsOntoAsManyTracksAsNeeded) {
  auto r = visual_sample_results();
  // Three more slices on stream 7, each [20, 200]. First fit by start: d4 [10,60] -> track 0; the three long
  // ones overlap d4 and each other -> tracks 1, 2, 3; d5 [70,120] fits after d4 -> track 0; d6 [100,130]
  // overlaps d5 and the long ones -> track 4. Five tracks.
  for (int i = 0; i < 3; ++i) {
    auto d = r.trace.dispatches[4];
    d.start = rpl::test::kBase + 20;
    d.end = rpl::test::kBase + 200;
    r.trace.dispatches.push_back(d);
  }
  json doc = export_json(r);
  EXPECT_EQ(overlap_on_any_track(doc), "");
  int lanes_of_pid2 = 0;
  for (const auto& [track, name] : thread_names(doc)) lanes_of_pid2 += track.first == 2;
  EXPECT_EQ(lanes_of_pid2, 5);
}

TEST(PerfettoExport, EmptyTraceIsAValidEmptyDocument) {
  rpl::app::AnalyzeResults r;
  json doc = export_json(r);
  EXPECT_TRUE(doc["traceEvents"].empty());
  EXPECT_EQ(doc["otherData"]["trace_start_ns"], "0");
}

TEST(PerfettoExport, WriteFailureIsAnOutputError) {
  TempDir dir;
  try {
    rpl::report::write_perfetto_file(dir.file("no/such/dir/trace.json"), visual_sample_results());
    FAIL() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::OutputFailed);
  }
}

// 1M dispatches stream out without a DOM; the output is complete and every slice is there.
TEST(PerfettoExport, MillionDispatchesStreamOut) {
  const std::size_t n = 1'000'000;
  rpl::app::AnalyzeResults r = rpl::test::many_dispatches_results(n);
  TempDir dir;
  auto t0 = std::chrono::steady_clock::now();
  rpl::report::write_perfetto_file(dir.file("big.json"), r);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RecordProperty("export_seconds", std::to_string(seconds));
  std::string text = rpl::test::read_file(dir.file("big.json"));
  RecordProperty("bytes", std::to_string(text.size()));
  std::size_t slices = 0;
  for (std::size_t pos = text.find("\"ph\":\"X\""); pos != std::string::npos; pos = text.find("\"ph\":\"X\"", pos + 1))
    ++slices;
  EXPECT_EQ(slices, n);
  EXPECT_EQ(text.substr(text.size() - 2), "]}");
}
