// `rocm-perf export perfetto --format pftrace`: Perfetto's native protobuf trace (perfetto.protos.Trace).
//
// The same layout as the JSON export (perfetto_export.hpp): a process track per profiled process with one
// child track per stream or queue (plus "overlap N" tracks where the profiler's timestamps overlap), flows
// for the recorded cross-stream dependencies, and a "Critical path" track. Slices are TrackEvent
// SLICE_BEGIN / SLICE_END pairs with absolute nanosecond timestamps (CLOCK_BOOTTIME, as the trace has them),
// so nothing is rounded. Names, categories and argument names are interned once on packet sequence 1.
//
// Streamed: every packet is serialised and written as soon as it is made (a Trace is just its packets, each
// a length-delimited field 1), so memory is the trace model plus a few integers per node, whatever the size.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/cross_stream_edges.hpp"
#include "perfetto_trace_subset.pb.h"
#include "report/perfetto_export.hpp"
#include "report/work_lanes.hpp"
#include "support/atomic_file.hpp"

namespace rpl::report {
namespace {

namespace pb = perfetto::protos;
using analysis::NodeKind;
using analysis::NodeRef;

constexpr uint32_t kSequence = 1;
constexpr uint64_t kCriticalPathUuid = 0x7fff'0000'0000'0000ULL;

// Interned argument names, emitted with the first packet.
enum ArgName : uint64_t {
  kDispatchId = 1,
  kCorrelationId,
  kGrid,
  kBlock,
  kCopyId,
  kBytes,
  kSlackNs,
  kCriticalPath,
  kStream,
  kArgNameCount
};
constexpr const char* kArgNames[] = {"",      "dispatch_id", "correlation_id", "grid",          "block",
                                     "copy_id", "bytes",     "slack_ns",       "critical_path", "stream"};
enum Category : uint64_t { kDispatchCategory = 1, kCopyCategory = 2 };

class PacketStream {
 public:
  explicit PacketStream(std::FILE* f) : f_(f) {}

  // Writes `packet` as one `repeated TracePacket packet = 1` field of the Trace message.
  void write(const pb::TracePacket& packet) {
    packet.SerializeToString(&bytes_);
    char header[11];
    std::size_t n = 0;
    header[n++] = 0x0a;  // field 1, length-delimited
    for (uint64_t len = bytes_.size();; len >>= 7) {
      header[n++] = static_cast<char>((len & 0x7f) | (len >= 0x80 ? 0x80 : 0));
      if (len < 0x80) break;
    }
    std::fwrite(header, 1, n, f_);
    std::fwrite(bytes_.data(), 1, bytes_.size(), f_);
  }

 private:
  std::FILE* f_;
  std::string bytes_;
};

class PftraceExporter {
 public:
  PftraceExporter(std::FILE* f, const app::AnalyzeResults& r, const PerfettoOptions& options)
      : out_(f), r_(r), t_(r.trace), options_(options), lanes_(t_), slots_(t_), name_iid_(t_.strings.size(), 0) {}

  void write() {
    index_path();
    if (options_.flows) index_flows();
    write_lanes();
    if (options_.critical_path_track) write_critical_path();
  }

 private:
  void index_path() {
    path_position_.assign(slots_.size(), kNotOnPath);
    for (std::size_t i = 0; i < r_.dag.path.size(); ++i)
      path_position_[slots_.slot(r_.dag.path[i])] = static_cast<int32_t>(i);
    if (!r_.dag.nodes.empty() && r_.dag.slack.size() == r_.dag.nodes.size()) {
      slack_.assign(slots_.size(), -1);
      for (std::size_t i = 0; i < r_.dag.nodes.size(); ++i) slack_[slots_.slot(r_.dag.nodes[i])] = r_.dag.slack[i];
    }
  }

  // Flow ids per node in two compressed lists (outgoing at the source slice, terminating at the target).
  void index_flows() {
    std::vector<analysis::DagEdge> edges = analysis::recorded_cross_stream_edges(t_);
    out_begin_.assign(slots_.size() + 1, 0);
    in_begin_.assign(slots_.size() + 1, 0);
    for (const analysis::DagEdge& e : edges) {
      ++out_begin_[slots_.slot(e.from) + 1];
      ++in_begin_[slots_.slot(e.to) + 1];
    }
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      out_begin_[i + 1] += out_begin_[i];
      in_begin_[i + 1] += in_begin_[i];
    }
    out_ids_.resize(edges.size());
    in_ids_.resize(edges.size());
    std::vector<uint32_t> out_fill(out_begin_.begin(), out_begin_.end() - 1);
    std::vector<uint32_t> in_fill(in_begin_.begin(), in_begin_.end() - 1);
    for (std::size_t k = 0; k < edges.size(); ++k) {
      out_ids_[out_fill[slots_.slot(edges[k].from)]++] = k + 1;
      in_ids_[in_fill[slots_.slot(edges[k].to)]++] = k + 1;
    }
  }

  // Every packet is on sequence 1; the first clears the incremental state and carries the fixed interned
  // names, the others may refer to them.
  pb::TracePacket& packet() {
    packet_.Clear();
    packet_.set_trusted_packet_sequence_id(kSequence);
    if (first_packet_) {
      first_packet_ = false;
      packet_.set_sequence_flags(pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
      pb::InternedData* interned = packet_.mutable_interned_data();
      for (uint64_t iid = 1; iid < kArgNameCount; ++iid) {
        pb::DebugAnnotationName* name = interned->add_debug_annotation_names();
        name->set_iid(iid);
        name->set_name(kArgNames[iid]);
      }
      for (auto [iid, name] : {std::pair{kDispatchCategory, "dispatch"}, std::pair{kCopyCategory, "copy"}}) {
        pb::EventCategory* category = interned->add_event_categories();
        category->set_iid(iid);
        category->set_name(name);
      }
    } else {
      packet_.set_sequence_flags(pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
    }
    return packet_;
  }

  void describe_track(uint64_t uuid, uint64_t parent, const std::string& name, int32_t rank, const Process* process) {
    pb::TrackDescriptor* track = packet().mutable_track_descriptor();
    track->set_uuid(uuid);
    if (parent) track->set_parent_uuid(parent);
    if (process) {
      track->mutable_process()->set_pid(static_cast<int32_t>(process->pid));
      track->mutable_process()->set_process_name(name);
    } else {
      track->set_name(name);
    }
    track->set_child_ordering(pb::TrackDescriptor::EXPLICIT);
    track->set_sibling_order_rank(rank);
    out_.write(packet_);
  }

  // The slice's name, interned on first use (in the packet that first uses it).
  uint64_t name_iid(pb::TracePacket& p, NodeRef n) {
    Index id = n.kind == NodeKind::Dispatch ? t_.symbols[t_.dispatches[n.index].symbol].display_name
                                            : t_.copies[n.index].kind;
    if (!name_iid_[id]) {
      name_iid_[id] = ++last_name_iid_;
      pb::EventName* name = p.mutable_interned_data()->add_event_names();
      name->set_iid(name_iid_[id]);
      name->set_name(t_.strings.at(id));
    }
    return name_iid_[id];
  }

  static void arg(pb::TrackEvent* e, ArgName name, int64_t value) {
    pb::DebugAnnotation* a = e->add_debug_annotations();
    a->set_name_iid(name);
    a->set_int_value(value);
  }
  static void arg(pb::TrackEvent* e, ArgName name, const std::string& value) {
    pb::DebugAnnotation* a = e->add_debug_annotations();
    a->set_name_iid(name);
    a->set_string_value(value);
  }

  // SLICE_BEGIN (with the arguments and, on lane tracks, the flows) and SLICE_END of one node.
  void slice(NodeRef n, uint64_t track, bool with_flows, const std::string* stream_label) {
    TimeNs start = node_start(t_, n), end = std::max(node_end(t_, n), start);
    std::size_t slot = slots_.slot(n);
    pb::TracePacket& begin = packet();
    begin.set_timestamp(static_cast<uint64_t>(start));
    pb::TrackEvent* e = begin.mutable_track_event();
    e->set_type(pb::TrackEvent::TYPE_SLICE_BEGIN);
    e->set_track_uuid(track);
    e->set_name_iid(name_iid(begin, n));
    if (n.kind == NodeKind::Dispatch) {
      const Dispatch& d = t_.dispatches[n.index];
      e->add_category_iids(kDispatchCategory);
      arg(e, kDispatchId, d.dispatch_id);
      arg(e, kCorrelationId, d.correlation_id);
      arg(e, kGrid, fmt::format("{}x{}x{}", d.grid[0], d.grid[1], d.grid[2]));
      arg(e, kBlock, fmt::format("{}x{}x{}", d.block[0], d.block[1], d.block[2]));
    } else {
      const MemoryCopy& c = t_.copies[n.index];
      e->add_category_iids(kCopyCategory);
      arg(e, kCopyId, c.copy_id);
      arg(e, kCorrelationId, c.correlation_id);
      arg(e, kBytes, static_cast<int64_t>(std::min<uint64_t>(c.bytes, INT64_MAX)));
    }
    if (!slack_.empty() && slack_[slot] >= 0) arg(e, kSlackNs, slack_[slot]);
    if (path_position_[slot] != kNotOnPath) {
      pb::DebugAnnotation* a = e->add_debug_annotations();
      a->set_name_iid(kCriticalPath);
      a->set_bool_value(true);
    }
    if (stream_label) arg(e, kStream, *stream_label);
    if (with_flows && !out_begin_.empty()) {
      for (uint32_t k = out_begin_[slot]; k < out_begin_[slot + 1]; ++k) e->add_flow_ids_old(out_ids_[k]);
      for (uint32_t k = in_begin_[slot]; k < in_begin_[slot + 1]; ++k) e->add_terminating_flow_ids_old(in_ids_[k]);
    }
    out_.write(begin);

    pb::TracePacket& finish = packet();
    finish.set_timestamp(static_cast<uint64_t>(end));
    finish.mutable_track_event()->set_type(pb::TrackEvent::TYPE_SLICE_END);
    finish.mutable_track_event()->set_track_uuid(track);
    out_.write(finish);
  }

  static uint64_t process_uuid(Index process) { return (uint64_t(process == kNoIndex ? 0xffff : process) + 1) << 32; }

  void write_lanes() {
    Index last_process = kNoIndex - 1;
    uint64_t next_track = 0;
    for (const WorkLane& lane : lanes_.lanes()) {
      const uint64_t parent = process_uuid(lane.process);
      if (lane.process != last_process) {
        last_process = lane.process;
        next_track = parent;
        static const Process kUnknown{};
        const Process& p = lane.process < t_.processes.size() ? t_.processes[lane.process] : kUnknown;
        describe_track(parent, 0, process_label(t_, lane.process), static_cast<int32_t>(lane.process), &p);
      }
      // A sub-track is described just before its first slice.
      std::vector<uint64_t> tracks;
      SubTracks subtracks;
      for (NodeRef n : lane.nodes) {
        TimeNs start = node_start(t_, n);
        std::size_t k = subtracks.place(start, std::max(node_end(t_, n), start));
        if (k == tracks.size()) {
          tracks.push_back(++next_track);
          std::string name = k == 0 ? lane.label : fmt::format("{} · overlap {}", lane.label, k);
          describe_track(tracks[k], parent, name, static_cast<int32_t>(next_track - parent), nullptr);
        }
        slice(n, tracks[k], true, nullptr);
      }
    }
  }

  void write_critical_path() {
    if (r_.dag.path.empty()) return;
    describe_track(kCriticalPathUuid, 0, "Critical path", -1, nullptr);
    std::vector<std::string> lane_labels;
    for (const WorkLane& lane : lanes_.lanes())
      lane_labels.push_back(fmt::format("{} / {}", process_label(t_, lane.process), lane.label));
    SubTracks subtracks;
    std::size_t described = 0;
    for (NodeRef n : r_.dag.path) {
      TimeNs start = node_start(t_, n);
      std::size_t k = subtracks.place(start, std::max(node_end(t_, n), start));
      if (k == described) {
        ++described;
        std::string name = k == 0 ? std::string("critical path") : fmt::format("critical path · overlap {}", k);
        describe_track(kCriticalPathUuid + 1 + k, kCriticalPathUuid, name, static_cast<int32_t>(k), nullptr);
      }
      slice(n, kCriticalPathUuid + 1 + k, false, &lane_labels[lanes_.lane_of(n)]);
    }
  }

  PacketStream out_;
  const app::AnalyzeResults& r_;
  const Trace& t_;
  PerfettoOptions options_;
  WorkLanes lanes_;
  NodeSlots slots_;
  pb::TracePacket packet_;
  bool first_packet_ = true;
  std::vector<uint64_t> name_iid_;  // per Trace::strings id; 0 = not interned yet
  uint64_t last_name_iid_ = 0;
  std::vector<int32_t> path_position_;
  std::vector<TimeNs> slack_;
  std::vector<uint32_t> out_begin_, in_begin_;  // per node slot + 1: offsets into out_ids_ / in_ids_
  std::vector<uint64_t> out_ids_, in_ids_;
};

}  // namespace

void write_pftrace(std::FILE* f, const app::AnalyzeResults& r, const PerfettoOptions& options) {
  PftraceExporter(f, r, options).write();
}

void write_pftrace_file(const std::string& path, const app::AnalyzeResults& r, const PerfettoOptions& options) {
  write_file_atomically(path, [&](std::FILE* f) { write_pftrace(f, r, options); });
}

}  // namespace rpl::report
