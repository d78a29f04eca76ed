// `rocm-perf export perfetto --format pftrace`: Perfetto's protobuf trace, read back packet by packet and
// checked against the rules Perfetto's importer applies: one packet sequence whose first packet clears the
// incremental state, every track described before an event uses it, interned names defined before use,
// begin/end balanced per track with nothing overlapping, every flow with one start and one end.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>

#include "perfetto_trace_subset.pb.h"
#include "report/perfetto_export.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"
#include "testing/visual_sample.hpp"

namespace pb = perfetto::protos;
using rpl::test::TempDir;

namespace {

// Calls `each` with every packet of the Trace message in `path`, read in pieces (never the whole file).
void for_each_packet(const std::string& path, const std::function<void(const pb::TracePacket&)>& each) {
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  std::string bytes;
  pb::TracePacket packet;
  for (int tag; (tag = in.get()) != EOF;) {
    ASSERT_EQ(tag, 0x0a) << "not field 1 (length-delimited) at " << in.tellg();
    uint64_t length = 0;
    for (int shift = 0;; shift += 7) {
      int byte = in.get();
      ASSERT_NE(byte, EOF) << "truncated length";
      length |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    bytes.resize(length);
    ASSERT_TRUE(in.read(bytes.data(), static_cast<std::streamsize>(length))) << "truncated packet";
    ASSERT_TRUE(packet.ParseFromString(bytes));
    each(packet);
  }
}

struct Slice {
  uint64_t track;
  std::string name;
  int64_t start, end;
  std::map<std::string, std::string> args;
  std::vector<uint64_t> flows_out, flows_in;
};

// The trace as Perfetto would see it, checking the importer's rules on the way.
struct Decoded {
  std::map<uint64_t, pb::TrackDescriptor> tracks;
  std::vector<Slice> slices;
  std::size_t packets = 0;
  std::vector<std::string> problems;
};

Decoded decode(const std::string& path) {
  Decoded d;
  std::map<uint64_t, std::string> names, arg_names;
  std::map<uint64_t, Slice> open;  // by track
  for_each_packet(path, [&](const pb::TracePacket& p) {
    auto problem = [&](const std::string& what) { d.problems.push_back("packet " + std::to_string(d.packets) + ": " + what); };
    if (p.trusted_packet_sequence_id() != 1) problem("not on sequence 1");
    if (d.packets == 0 && p.sequence_flags() != pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED)
      problem("the first packet does not clear the incremental state");
    ++d.packets;
    for (const auto& n : p.interned_data().event_names()) names[n.iid()] = n.name();
    for (const auto& n : p.interned_data().debug_annotation_names()) arg_names[n.iid()] = n.name();
    if (p.has_track_descriptor()) {
      const auto& t = p.track_descriptor();
      if (d.tracks.count(t.uuid())) problem("track described twice");
      if (t.has_parent_uuid() && !d.tracks.count(t.parent_uuid())) problem("parent described after its child");
      d.tracks[t.uuid()] = t;
    }
    if (!p.has_track_event()) return;
    const auto& e = p.track_event();
    if (!d.tracks.count(e.track_uuid())) problem("event on an undescribed track");
    auto ts = static_cast<int64_t>(p.timestamp());
    if (e.type() == pb::TrackEvent::TYPE_SLICE_BEGIN) {
      if (open.count(e.track_uuid())) problem("slice begins inside another on the same track");
      if (!names.count(e.name_iid())) problem("name iid used before it is interned");
      Slice s{e.track_uuid(), names[e.name_iid()], ts, ts, {}, {}, {}};
      for (const auto& a : e.debug_annotations()) {
        if (!arg_names.count(a.name_iid())) problem("argument name iid used before it is interned");
        std::string v = a.has_string_value() ? a.string_value()
                        : a.has_bool_value() ? (a.bool_value() ? "true" : "false")
                                             : std::to_string(a.int_value());
        s.args[arg_names[a.name_iid()]] = v;
      }
      s.flows_out.assign(e.flow_ids_old().begin(), e.flow_ids_old().end());
      s.flows_in.assign(e.terminating_flow_ids_old().begin(), e.terminating_flow_ids_old().end());
      open[e.track_uuid()] = s;
    } else if (e.type() == pb::TrackEvent::TYPE_SLICE_END) {
      auto it = open.find(e.track_uuid());
      if (it == open.end()) return problem("end without begin");
      if (ts < it->second.start) problem("slice ends before it starts");
      it->second.end = ts;
      d.slices.push_back(it->second);
      open.erase(it);
    }
  });
  if (!open.empty()) d.problems.push_back("slices left open");
  // No two slices of one track overlap (they must nest; ours never nest).
  std::map<uint64_t, std::vector<std::pair<int64_t, int64_t>>> by_track;
  for (const auto& s : d.slices) by_track[s.track].emplace_back(s.start, s.end);
  for (auto& [track, spans] : by_track) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      if (spans[i - 1].second > spans[i].first) d.problems.push_back("overlap on track " + std::to_string(track));
  }
  return d;
}

Decoded export_decoded(const rpl::app::AnalyzeResults& r, const rpl::report::PerfettoOptions& options = {}) {
  TempDir dir;
  rpl::report::write_pftrace_file(dir.file("t.pftrace"), r, options);
  return decode(dir.file("t.pftrace"));
}

std::string track_name(const Decoded& d, uint64_t uuid) {
  const auto& t = d.tracks.at(uuid);
  return t.has_process() ? t.process().process_name() : t.name();
}

}  // namespace

TEST(ExportPftrace, FollowsPerfettosRules) {
  Decoded d = export_decoded(rpl::test::visual_sample_results());
  EXPECT_TRUE(d.problems.empty()) << d.problems.front();
  // 8 work items on the lanes + 4 on the critical path track.
  EXPECT_EQ(d.slices.size(), 12u);
}

TEST(ExportPftrace, TracksLikeTheJsonExport) {
  Decoded d = export_decoded(rpl::test::visual_sample_results());
  std::multiset<std::string> names;
  for (const auto& [uuid, t] : d.tracks) names.insert(track_name(d, uuid));
  // Two processes, their streams (stream 7 needs an overlap track), the path track and its lane.
  EXPECT_EQ(names.count("Critical path"), 1u);
  EXPECT_EQ(names.count("critical path"), 1u);
  int processes = 0;
  for (const auto& [uuid, t] : d.tracks) processes += t.has_process();
  EXPECT_EQ(processes, 2);
  bool overlap = false;
  for (const auto& n : names) overlap |= n.find("overlap 1") != std::string::npos;
  EXPECT_TRUE(overlap);
  // Each lane is a child of its process track.
  for (const auto& s : d.slices) {
    const auto& track = d.tracks.at(s.track);
    ASSERT_TRUE(track.has_parent_uuid());
  }
}

TEST(ExportPftrace, SlicesCarryExactNanosecondsAndArgs) {
  auto r = rpl::test::visual_sample_results();
  // A time far from the origin keeps its nanoseconds (no microsecond rounding).
  r.trace.dispatches.edit(2)->start = rpl::test::kBase + 10'800'000'000'007;
  r.trace.dispatches.edit(2)->end = r.trace.dispatches[2].start + 1;
  Decoded d = export_decoded(r);
  bool found = false;
  for (const auto& s : d.slices)
    if (s.start == rpl::test::kBase + 10'800'000'000'007) {
      found = true;
      EXPECT_EQ(s.end - s.start, 1);
      EXPECT_EQ(s.args.at("dispatch_id"), std::to_string(r.trace.dispatches[2].dispatch_id));
      EXPECT_EQ(s.args.at("correlation_id"), std::to_string(r.trace.dispatches[2].correlation_id));
    }
  EXPECT_TRUE(found);
  // d1 gemm [150, 250] is on the critical path.
  int on_path = 0;
  for (const auto& s : d.slices)
    if (s.start == rpl::test::kBase + 150) {
      EXPECT_EQ(s.name, "gemm<float, 128>");
      EXPECT_EQ(s.args.at("critical_path"), "true");
      ++on_path;
    }
  EXPECT_EQ(on_path, 2);  // its lane and the path track
}

TEST(ExportPftrace, FlowsFollowTheRecordedDependencies) {
  Decoded d = export_decoded(rpl::test::visual_sample_results());
  std::map<uint64_t, const Slice*> from, to;
  for (const auto& s : d.slices) {
    for (uint64_t id : s.flows_out) EXPECT_TRUE(from.emplace(id, &s).second) << "flow " << id << " starts twice";
    for (uint64_t id : s.flows_in) EXPECT_TRUE(to.emplace(id, &s).second) << "flow " << id << " ends twice";
  }
  ASSERT_EQ(from.size(), 2u);
  ASSERT_EQ(to.size(), 2u);
  bool d1_to_d3 = false;
  for (const auto& [id, s] : from) {
    ASSERT_TRUE(to.count(id));
    if (s->start == rpl::test::kBase + 150) d1_to_d3 = to[id]->start == rpl::test::kBase + 260;
  }
  EXPECT_TRUE(d1_to_d3);
  // Flows only between lane slices, never on the path track's copies.
  for (const auto& s : d.slices) {
    if (track_name(d, s.track).rfind("critical path", 0) == 0) {
      EXPECT_TRUE(s.flows_out.empty() && s.flows_in.empty());
    }
  }
}

TEST(ExportPftrace, OptionsTurnOffFlowsAndThePathTrack) {
  rpl::report::PerfettoOptions options;
  options.flows = false;
  options.critical_path_track = false;
  Decoded d = export_decoded(rpl::test::visual_sample_results(), options);
  EXPECT_EQ(d.slices.size(), 8u);
  for (const auto& s : d.slices) EXPECT_TRUE(s.flows_out.empty() && s.flows_in.empty());
}

TEST(ExportPftrace, EmptyTraceIsAnEmptyTrace) {
  TempDir dir;
  rpl::report::write_pftrace_file(dir.file("e.pftrace"), rpl::app::AnalyzeResults{});
  EXPECT_EQ(rpl::test::read_file(dir.file("e.pftrace")), "");
}

TEST(ExportPftrace, WriteFailureIsAnOutputError) {
  TempDir dir;
  try {
    rpl::report::write_pftrace_file(dir.file("no/such/dir/t.pftrace"), rpl::test::visual_sample_results());
    FAIL() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::OutputFailed);
  }
}

TEST(ExportPftrace, CommandLine) {
  TempDir dir;
  std::string db = std::string(RPL_SOURCE_DIR) + "/examples/traces/multistream-h100.db";
  auto r = rpl::test::run_cli({"export", "perfetto", db, "--format", "pftrace", "-o", dir.file("t.pftrace")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  Decoded d = decode(dir.file("t.pftrace"));
  EXPECT_TRUE(d.problems.empty()) << d.problems.front();
  EXPECT_GT(d.slices.size(), 15u);  // 15 dispatches + the critical path
  auto bad = rpl::test::run_cli({"export", "perfetto", db, "--format", "svg"});
  EXPECT_EQ(bad.exit_code, 2);
}

// Peak resident memory since the last reset_peak_rss() (Linux: VmHWM, reset through clear_refs).
long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}
long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// 1M dispatches are written packet by packet: the export adds little memory beyond the trace model,
// and every slice is in the file.
TEST(ExportPftrace, MillionDispatchesStreamOut) {
  const std::size_t n = 1'000'000;
  rpl::app::AnalyzeResults r = rpl::test::many_dispatches_results(n);
  TempDir dir;
  // The JSON export streams (JsonStream); the protobuf one may need no more memory than it.
  reset_peak_rss();
  long before = rss_kib();
  rpl::report::write_perfetto_file(dir.file("big.json"), r);
  long json_growth_kib = peak_rss_kib() - before;
  std::filesystem::remove(dir.file("big.json"));
  reset_peak_rss();
  before = rss_kib();
  auto t0 = std::chrono::steady_clock::now();
  rpl::report::write_pftrace_file(dir.file("big.pftrace"), r);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long growth_kib = peak_rss_kib() - before;
  auto bytes = std::filesystem::file_size(dir.file("big.pftrace"));
  RecordProperty("export_seconds", std::to_string(seconds));
  RecordProperty("rss_growth_kib", std::to_string(growth_kib));
  RecordProperty("json_rss_growth_kib", std::to_string(json_growth_kib));
  RecordProperty("bytes", std::to_string(bytes));
  std::printf("pftrace: %zu bytes in %.2f s, peak memory +%ld KiB (JSON export: +%ld KiB)\n", std::size_t(bytes), seconds,
              growth_kib, json_growth_kib);
#if defined(__SANITIZE_ADDRESS__)
  // ASan keeps freed blocks in its quarantine (256 MB by default), so peak RSS measures the allocator, not the
  // export: the bound is checked in the ordinary build only.
  std::printf("ASan build: the peak-memory bound is not checked\n");
#else
  EXPECT_LE(growth_kib, json_growth_kib + 16 * 1024) << "the export holds the packets in memory";
#endif
  std::size_t begins = 0, ends = 0;
  for_each_packet(dir.file("big.pftrace"), [&](const pb::TracePacket& p) {
    begins += p.track_event().type() == pb::TrackEvent::TYPE_SLICE_BEGIN;
    ends += p.track_event().type() == pb::TrackEvent::TYPE_SLICE_END;
  });
  EXPECT_EQ(begins, n);
  EXPECT_EQ(ends, n);
}
