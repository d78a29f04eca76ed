#pragma once
// The tracks of the visual reports (HTML timeline, Perfetto export): one lane per (process, stream).
// Work without a stream (a rocprofv3 kernel trace without HIP stream information) goes to a lane per
// (process, queue), and work with neither to one lane per process.
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
  std::vector<analysis::NodeRef> nodes;  // by start, then end
};

class WorkLanes {
 public:
  explicit WorkLanes(const Trace& trace);
  // Ordered by process, then stream lanes, queue lanes, the unassigned lane; each by rocpd id.
  const std::vector<WorkLane>& lanes() const { return lanes_; }
  std::size_t lane_of(analysis::NodeRef n) const;
  std::size_t node_count() const { return node_count_; }

 private:
  const Trace& trace_;
  std::vector<WorkLane> lanes_;
  std::vector<uint32_t> lane_of_stream_, lane_of_queue_, lane_of_unassigned_;  // by stream/queue/process
  std::size_t node_count_ = 0;
};

TimeNs node_start(const Trace& t, analysis::NodeRef n);
TimeNs node_end(const Trace& t, analysis::NodeRef n);
// Kernel display name, or the copy kind ("MEMORY_COPY_HOST_TO_DEVICE").
const std::string& node_name(const Trace& t, analysis::NodeRef n);
// "pid 1234 (command) on host": how the reports name a process.
std::string process_label(const Trace& t, Index process);

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
