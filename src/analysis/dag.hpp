#pragma once
// Internal to the analysis stage: the dependency DAG behind critical_path.hpp, shared by the critical-path
// analysis and the what-if re-timing. Built once; the schedule passes only read it.
//
// Node ids: [0, dispatch_count) are Trace::dispatches in order, [dispatch_count, work_count) Trace::copies in
// order, and [work_count, size()) join nodes.
//
// A join node stands for one point where several chains of work meet and later work is released: a host
// synchronisation (cudaDeviceSynchronize / hipDeviceSynchronize, stream and event synchronisation), a GPU
// barrier, or (for other analyses) any "all of these before any of those" point. It has zero duration and
// zero gap, so its earliest finish is the latest finish of its predecessors: the schedule is exactly that of
// an edge from every predecessor to every successor, with edges linear in records instead of their product.
// Joins are internal: the critical path and the per-node results list work nodes only (a path through a join
// links the binding predecessor of the join directly to its successor, with the join's edge kind).
//
// Storage is compact and flat: per-node arrays and CSR edge arrays (no per-node allocations).
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "support/large_vector.hpp"

namespace rpl::analysis::dag {

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();
// The lane of join nodes: none of the stream-order lanes.
inline constexpr uint32_t kJoinLane = std::numeric_limits<uint32_t>::max();

struct Dag {
  std::size_t dispatch_count = 0;
  std::size_t work_count = 0;      // dispatches + copies; join nodes follow
  LargeVector<JoinReason> join_reason;  // per join node: join_reason[v - work_count]
  TimeNs trace_start = 0;          // earliest node start
  TimeNs trace_end = 0;            // latest node end
  LargeVector<TimeNs> start;       // measured GPU start; the schedule passes do not read it (StartTimes::Drop)
  LargeVector<TimeNs> duration;    // measured, clamped at 0 (end < start is treated as 0 long)
  LargeVector<uint32_t> lane;      // the stream-order chain (stream or queue) the node belongs to
  LargeVector<TimeNs> gap;         // model idle time before the node (see critical_path.hpp)

  // Predecessors and successors in CSR form: preds of v are preds[pred_offset[v] .. pred_offset[v+1]).
  LargeVector<uint32_t> pred_offset, succ_offset;  // N + 1 entries
  LargeVector<NodeId> preds, succs;
  LargeVector<EdgeKind> pred_kinds;                // parallel to preds
  // (analyze_critical_path releases start, then the predecessor arrays and lanes once the path is walked: the
  // backward pass reads successors, durations, gaps and the order only.)

  LargeVector<NodeId> topo_order;  // every node, predecessors first
  EdgeCounts counts;
  JoinCounts joins;
  std::string ordering;            // "stream", "queue", "mixed", "none"
  bool inferred_enabled = false;

  std::size_t size() const { return duration.size(); }
  bool is_join(NodeId v) const { return v >= work_count; }
  TimeNs end(NodeId v) const { return start[v] + duration[v]; }
  // The total order stream order follows: start, then end, then id.
  bool earlier(NodeId a, NodeId b) const {
    if (start[a] != start[b]) return start[a] < start[b];
    if (end(a) != end(b)) return end(a) < end(b);
    return a < b;
  }
  NodeRef ref(NodeId v) const {
    return v < dispatch_count ? NodeRef{NodeKind::Dispatch, static_cast<Index>(v)}
                              : NodeRef{NodeKind::Copy, static_cast<Index>(v - dispatch_count)};
  }
};

// `keep_start`: false leaves Dag::start empty (the schedule passes do not read it): the gaps are then computed in
// place of the start times, so that the two never coexist (issue 32: the end of the build is the run's peak).
enum class StartTimes { Keep, Drop };
Dag build_dag(const Trace& trace, const DagOptions& options, StartTimes start_times = StartTimes::Keep);

// Forward pass over the DAG with the given per-node durations (measured or re-timed); gaps stay as
// measured. Fills `finish` (N entries) with EF relative to the trace start and returns the makespan
// (max EF; 0 when the DAG is empty). Instantiated for TimeNs (exact, measured) and double (scaled).
template <typename T>
T forward_pass(const Dag& dag, std::span<const T> durations, std::span<T> finish);

// Backward pass with measured durations: fills `latest` (N entries) with the latest finish LF per node,
// relative to the trace start.
void backward_pass(const Dag& dag, TimeNs makespan, std::span<TimeNs> latest);

// The critical path, in time order, ending at the work node with the latest finish (lowest id on ties) and
// walking back through binding predecessors (latest finish; ties: same lane, then lowest id). A join
// predecessor stands for its own binding work node (latest finish among the work it joins, lowest id on
// ties), so the path holds work nodes only. `links[i]` receives the kind of the edge path[i] -> path[i+1]
// (for a step through a join, the kind of the join's edge into path[i+1]).
std::vector<NodeId> walk_critical_path(const Dag& dag, std::span<const TimeNs> finish,
                                       std::vector<EdgeKind>& links);

}  // namespace rpl::analysis::dag
