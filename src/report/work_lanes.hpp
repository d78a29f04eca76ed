#pragma once
// The tracks of the visual reports (HTML timeline, Perfetto export): one lane per (process, stream).
// Work without a stream (a rocprofv3 kernel trace without HIP stream information) goes to a lane per
// (process, queue), and work with neither to one lane per process.
#include <limits>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "model/trace.hpp"

namespace rpl::report {

enum class LaneKind : uint8_t { Stream, Queue, Unassigned };

struct WorkLane {
  Index process = kNoIndex;
  LaneKind kind = LaneKind::Stream;
  Index id = kNoIndex;                   // into Trace::streams or Trace::queues; kNoIndex when unassigned
  std::string label;                     // "stream 3", "stream 3 (copy)", "queue 2", "no stream"
  std::size_t count = 0;                 // its nodes
  std::vector<analysis::NodeRef> nodes;  // by start, then end (then dispatches before copies, each by index)
};

class WorkLanes {
 public:
  // `with_nodes` false: the lanes and their counts without their node lists (issue 32: 8 bytes per node, and 4
  // more while they were built); for_each_by_lane then visits the nodes.
  explicit WorkLanes(const Trace& trace, bool with_nodes = true);
  // Ordered by process, then stream lanes, queue lanes, the unassigned lane; each by rocpd id.
  const std::vector<WorkLane>& lanes() const { return lanes_; }
  std::size_t lane_of(analysis::NodeRef n) const;
  std::size_t node_count() const { return node_count_; }

  // Calls f(lane, node) for every node, each lane's nodes in the order of WorkLane::nodes (the lanes interleaved),
  // without holding them: each lane's dispatches and its copies, each in trace order, merged. Returns false at
  // once, calling nothing, when some lane's dispatches or copies are not in that order in the trace.
  template <typename F>
  bool for_each_by_lane(F f) const;

 private:
  uint32_t dispatch_lane(std::size_t i) const { return lane_of_launch_[trace_.dispatches.launch_of(i)]; }

  const Trace& trace_;
  std::vector<WorkLane> lanes_;
  std::vector<uint32_t> lane_of_stream_, lane_of_queue_, lane_of_unassigned_;  // by stream/queue/process
  std::vector<uint32_t> lane_of_launch_;  // by interned launch (a launch fixes process, stream and queue)
  std::size_t node_count_ = 0;
};

TimeNs node_start(const Trace& t, analysis::NodeRef n);
TimeNs node_end(const Trace& t, analysis::NodeRef n);
// Kernel display name, or the copy kind ("MEMORY_COPY_HOST_TO_DEVICE").
const std::string& node_name(const Trace& t, analysis::NodeRef n);
// "pid 1234 (command) on host": how the reports name a process.
std::string process_label(const Trace& t, Index process);

template <typename F>
bool WorkLanes::for_each_by_lane(F f) const {
  using analysis::NodeKind;
  using analysis::NodeRef;
  const DispatchTable& d = trace_.dispatches;
  struct Last {
    TimeNs start = std::numeric_limits<TimeNs>::min(), end = std::numeric_limits<TimeNs>::min();
    bool ordered(TimeNs s, TimeNs e) {
      const bool ok = s != start ? s > start : e >= end;
      start = s, end = e;
      return ok;
    }
  };
  std::vector<Last> last_dispatch(lanes_.size()), last_copy(lanes_.size());
  for (std::size_t i = 0; i < d.size(); ++i)
    if (!last_dispatch[dispatch_lane(i)].ordered(d.start_of(i), d.end_of(i))) return false;
  std::vector<std::vector<Index>> copies(lanes_.size());
  for (Index c = 0; c < trace_.copies.size(); ++c) {
    const std::size_t lane = lane_of(NodeRef{NodeKind::Copy, c});
    if (!last_copy[lane].ordered(trace_.copies[c].start, trace_.copies[c].end)) return false;
    copies[lane].push_back(c);
  }
  std::vector<std::size_t> next(lanes_.size(), 0);
  for (Index i = 0; i < d.size(); ++i) {
    const uint32_t lane = dispatch_lane(i);
    const TimeNs s = d.start_of(i), e = d.end_of(i);
    for (auto& k = next[lane]; k < copies[lane].size(); ++k) {  // the lane's copies that sort before the dispatch
      const MemoryCopy& c = trace_.copies[copies[lane][k]];
      if (c.start > s || (c.start == s && c.end >= e)) break;
      f(std::size_t{lane}, NodeRef{NodeKind::Copy, copies[lane][k]});
    }
    f(std::size_t{lane}, NodeRef{NodeKind::Dispatch, i});
  }
  for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
    for (; next[lane] < copies[lane].size(); ++next[lane]) f(lane, NodeRef{NodeKind::Copy, copies[lane][next[lane]]});
  return true;
}

// The earliest start of any dispatch or copy (0 for an empty trace): the Perfetto exports' time origin.
TimeNs trace_origin(const Trace& t);

// A dense per-node index (dispatches first, then copies), so a 10M-node trace needs no hash maps.
class NodeSlots {
 public:
  explicit NodeSlots(const Trace& t) : dispatches_(t.dispatches.size()), nodes_(t.dispatches.size() + t.copies.size()) {}
  std::size_t slot(analysis::NodeRef n) const {
    return n.kind == analysis::NodeKind::Dispatch ? n.index : dispatches_ + n.index;
  }
  std::size_t size() const { return nodes_; }

 private:
  std::size_t dispatches_;
  std::size_t nodes_;
};

// Places slices on sub-tracks so that no two overlap on one track. Perfetto requires the slices of a track
// to nest; rocprofv3 traces can show overlapping timestamps on one queue (the profiler's timestamps, not
// real concurrency), so rather than nudging times (which would falsify the data) an overlapping slice goes
// to the first overflow sub-track ("... overlap N") where it fits.
class SubTracks {
 public:
  // Returns the sub-track (0 = the lane's own track) for a slice [start, end]; slices arrive by start.
  std::size_t place(TimeNs start, TimeNs end) {
    for (std::size_t k = 0; k < last_end_.size(); ++k)
      if (last_end_[k] <= start) {
        last_end_[k] = end;
        return k;
      }
    last_end_.push_back(end);
    return last_end_.size() - 1;
  }
  std::size_t count() const { return last_end_.size(); }

 private:
  std::vector<TimeNs> last_end_;
};

}  // namespace rpl::report
