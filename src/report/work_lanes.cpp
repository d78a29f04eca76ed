#include "report/work_lanes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <tuple>

#include "analysis/fast_sort.hpp"

namespace rpl::report {
namespace {

constexpr uint32_t kNoLane = UINT32_MAX;

struct NodePlace {
  LaneKind kind;
  Index id;       // stream, queue or process index
  Index process;
};

NodePlace place(const Trace& t, analysis::NodeRef n) {
  Index stream, queue, process;
  if (n.kind == analysis::NodeKind::Dispatch) {
    const DispatchPlacement& d = t.dispatches.placement_of(n.index);
    stream = d.stream, queue = d.queue, process = d.process;
  } else {
    const MemoryCopy& c = t.copies[n.index];
    stream = c.stream, queue = c.queue, process = c.process;
  }
  if (stream != kNoIndex) return {LaneKind::Stream, stream, t.streams[stream].process};
  if (queue != kNoIndex) return {LaneKind::Queue, queue, t.queues[queue].process};
  return {LaneKind::Unassigned, process, process};
}

std::string lane_label(const Trace& t, LaneKind kind, Index id) {
  if (kind == LaneKind::Unassigned) return "no stream";
  const auto& [rocpd_id, name] = kind == LaneKind::Stream ? std::tie(t.streams[id].rocpd_id, t.streams[id].name)
                                                          : std::tie(t.queues[id].rocpd_id, t.queues[id].name);
  std::string label = fmt::format("{} {}", kind == LaneKind::Stream ? "stream" : "queue", rocpd_id);
  if (!name.empty()) label += fmt::format(" ({})", name);
  return label;
}

}  // namespace

WorkLanes::WorkLanes(const Trace& trace, bool with_nodes)
    : trace_(trace),
      lane_of_stream_(trace.streams.size(), kNoLane),
      lane_of_queue_(trace.queues.size(), kNoLane),
      lane_of_unassigned_(trace.processes.size() + 1, kNoLane),
      lane_of_launch_(trace.dispatches.launch_count(), kNoLane) {
  auto slot = [&](const NodePlace& p) -> uint32_t& {
    if (p.kind == LaneKind::Stream) return lane_of_stream_[p.id];
    if (p.kind == LaneKind::Queue) return lane_of_queue_[p.id];
    // kNoIndex (no process) shares the last slot.
    return lane_of_unassigned_[std::min<std::size_t>(p.id, trace.processes.size())];
  };

  // Which lanes exist, then their order. A dispatch's lane is its interned launch's (a launch fixes its process,
  // stream and queue): found once per launch, no per-node array (issue 32).
  std::vector<NodePlace> used;
  std::vector<std::size_t> counts;
  auto lane_of_place = [&](const NodePlace& p) {
    uint32_t& lane = slot(p);
    if (lane == kNoLane) {
      lane = static_cast<uint32_t>(used.size());
      used.push_back(p);
      counts.push_back(0);
    }
    return lane;
  };
  for (Index i = 0; i < trace.dispatches.size(); ++i) {
    uint32_t& lane = lane_of_launch_[trace.dispatches.launch_of(i)];
    if (lane == kNoLane) lane = lane_of_place(place(trace, analysis::NodeRef{analysis::NodeKind::Dispatch, i}));
    ++counts[lane];
  }
  for (Index i = 0; i < trace.copies.size(); ++i)
    ++counts[lane_of_place(place(trace, analysis::NodeRef{analysis::NodeKind::Copy, i}))];
  node_count_ = trace.dispatches.size() + trace.copies.size();

  auto rocpd_id = [&](const NodePlace& p) -> int64_t {
    if (p.kind == LaneKind::Stream) return trace.streams[p.id].rocpd_id;
    if (p.kind == LaneKind::Queue) return trace.queues[p.id].rocpd_id;
    return 0;
  };
  std::vector<uint32_t> order(used.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const NodePlace &pa = used[a], &pb = used[b];
    return std::tuple(pa.process, pa.kind, rocpd_id(pa), pa.id) < std::tuple(pb.process, pb.kind, rocpd_id(pb), pb.id);
  });
  lanes_.resize(used.size());
  std::vector<uint32_t> position(used.size());
  for (uint32_t rank = 0; rank < order.size(); ++rank) {
    const NodePlace& p = used[order[rank]];
    position[order[rank]] = rank;
    WorkLane& lane = lanes_[rank];
    lane.process = p.process;
    lane.kind = p.kind;
    lane.id = p.kind == LaneKind::Unassigned ? kNoIndex : p.id;
    lane.label = lane_label(trace, p.kind, p.id);
    lane.count = counts[order[rank]];
  }
  for (auto* table : {&lane_of_stream_, &lane_of_queue_, &lane_of_unassigned_, &lane_of_launch_})
    for (uint32_t& lane : *table)
      if (lane != kNoLane) lane = position[lane];
  if (!with_nodes) return;

  for (WorkLane& lane : lanes_) lane.nodes.reserve(lane.count);
  // In lane order at once when the trace holds each lane's dispatches and copies in that order (the usual case).
  if (for_each_by_lane([&](std::size_t lane, analysis::NodeRef n) { lanes_[lane].nodes.push_back(n); })) return;
  for (Index i = 0; i < trace.dispatches.size(); ++i)
    lanes_[dispatch_lane(i)].nodes.push_back(analysis::NodeRef{analysis::NodeKind::Dispatch, i});
  for (Index i = 0; i < trace.copies.size(); ++i) {
    const analysis::NodeRef n{analysis::NodeKind::Copy, i};
    lanes_[lane_of(n)].nodes.push_back(n);
  }
  // By (start, end), sorting copies of the keys, without two random reads of the trace per comparison (issue 32:
  // this sort was a tenth of `analyze` at 1M dispatches). Nodes of equal start and end keep their trace order
  // (dispatches, then copies, each by index), so that the order is a total one: a lane then holds a few
  // ascending runs (its dispatches, then its copies), which sort_runs merges in linear time.
  struct Keyed {
    TimeNs start, end;
    analysis::NodeRef ref;
  };
  std::vector<Keyed> keyed;
  for (WorkLane& lane : lanes_) {
    keyed.clear();
    keyed.reserve(lane.nodes.size());
    for (analysis::NodeRef n : lane.nodes) keyed.push_back({node_start(trace, n), node_end(trace, n), n});
    analysis::sort_runs(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
      if (a.start != b.start) return a.start < b.start;
      if (a.end != b.end) return a.end < b.end;
      return a.ref.kind != b.ref.kind ? a.ref.kind < b.ref.kind : a.ref.index < b.ref.index;
    });
    for (std::size_t i = 0; i < keyed.size(); ++i) lane.nodes[i] = keyed[i].ref;
  }
}

std::size_t WorkLanes::lane_of(analysis::NodeRef n) const {
  NodePlace p = place(trace_, n);
  if (p.kind == LaneKind::Stream) return lane_of_stream_[p.id];
  if (p.kind == LaneKind::Queue) return lane_of_queue_[p.id];
  return lane_of_unassigned_[std::min<std::size_t>(p.id, trace_.processes.size())];
}

TimeNs node_start(const Trace& t, analysis::NodeRef n) {
  return n.kind == analysis::NodeKind::Dispatch ? t.dispatches.start_of(n.index) : t.copies[n.index].start;
}

TimeNs node_end(const Trace& t, analysis::NodeRef n) {
  return n.kind == analysis::NodeKind::Dispatch ? t.dispatches.end_of(n.index) : t.copies[n.index].end;
}

const std::string& node_name(const Trace& t, analysis::NodeRef n) {
  return n.kind == analysis::NodeKind::Dispatch ? t.strings.at(t.symbols[t.dispatches.symbol_of(n.index)].display_name)
                                                : t.strings.at(t.copies[n.index].kind);
}

std::string process_label(const Trace& t, Index process) {
  if (process >= t.processes.size()) return "unknown process";
  const Process& p = t.processes[process];
  std::string label = fmt::format("pid {}", p.pid);
  if (!p.command.empty()) label += fmt::format(" ({})", p.command);
  if (!p.hostname.empty()) label += fmt::format(" on {}", p.hostname);
  return label;
}

TimeNs trace_origin(const Trace& t) {
  TimeNs origin = std::numeric_limits<TimeNs>::max();
  for (std::size_t i = 0; i < t.dispatches.size(); ++i) origin = std::min(origin, t.dispatches.start_of(i));
  for (const MemoryCopy& c : t.copies) origin = std::min(origin, c.start);
  return origin == std::numeric_limits<TimeNs>::max() ? 0 : origin;
}

}  // namespace rpl::report
