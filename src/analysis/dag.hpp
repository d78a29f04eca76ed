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
// Storage is compact and flat: per-node arrays and CSR edge arrays (no per-node allocations); the measured times
// are read from the trace (Dag::work), not copied.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "support/large_vector.hpp"
#include "support/spilled_column.hpp"

namespace rpl::analysis::dag {

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();
// The lane of join nodes: none of the stream-order lanes.
inline constexpr uint32_t kJoinLane = std::numeric_limits<uint32_t>::max();

// Measured times of the trace's work (dispatches, then copies), read from the trace itself: the DAG holds no
// per-node copy of them (issue 32: 16 bytes per node less). A record that ends before it starts is 0 long.
struct WorkTimes {
  const Trace* trace = nullptr;
  std::size_t dispatch_count = 0;

  TimeNs start(NodeId v) const {
    return v < dispatch_count ? trace->dispatches.start_of(v) : trace->copies[v - dispatch_count].start;
  }
  TimeNs duration(NodeId v) const {
    const TimeNs d = v < dispatch_count ? trace->dispatches.duration_of(v)
                                        : trace->copies[v - dispatch_count].end - trace->copies[v - dispatch_count].start;
    return d > 0 ? d : 0;
  }
  TimeNs end(NodeId v) const { return start(v) + duration(v); }
};

// The stream-order lane (stream or queue chain) of each node, held per interned launch for the dispatches (a
// launch fixes a dispatch's process, stream, queue and agent) and per copy: issue 32, no per-dispatch array.
// Join nodes answer kJoinLane.
struct Lanes {
  const DispatchTable* dispatches = nullptr;
  std::size_t dispatch_count = 0, work_count = 0;
  uint32_t count = 0;               // lanes are numbered 0 .. count - 1
  LargeVector<uint32_t> by_launch;  // per DispatchTable launch id
  LargeVector<uint32_t> by_copy;    // per copy
  uint32_t operator[](NodeId v) const {
    if (v < dispatch_count) return by_launch[dispatches->launch_of(v)];
    return v < work_count ? by_copy[v - dispatch_count] : kJoinLane;
  }
  void clear() { LargeVector<uint32_t>().swap(by_launch), LargeVector<uint32_t>().swap(by_copy); }
};

struct Dag {
  WorkTimes work;                  // the trace's records: nodes [0, work_count)
  std::size_t dispatch_count = 0;
  std::size_t work_count = 0;      // dispatches + copies; join nodes follow
  LargeVector<JoinReason> join_reason;  // per join node: join_reason[v - work_count]
  LargeVector<TimeNs> join_time;   // per join node: its start and end (the latest end of its predecessors)
  TimeNs trace_start = 0;          // earliest node start
  TimeNs trace_end = 0;            // latest node end
  Lanes lane;                      // the stream-order chain (stream or queue) each node belongs to

  // Predecessors in CSR form: preds of v are preds[pred_offset[v] .. pred_offset[v+1]). The schedule passes
  // read predecessors only (the backward pass pushes to them): successors are built only to break cycles.
  LargeVector<uint32_t> pred_offset;  // N + 1 entries
  LargeVector<NodeId> preds;
  LargeVector<EdgeKind> pred_kinds;                // parallel to preds
  LargeVector<uint32_t> succ_offset;  // successors likewise: empty outside cycle breaking
  LargeVector<NodeId> succs;
  // (analyze_critical_path releases the predecessor kinds and the lanes once the path is walked.)

  // Every node, predecessors first: built in topo_order, then moved into `order`, which a large DAG keeps in a
  // temporary file during the passes (issue 32: 4 bytes per node less at the run's peak); the passes read it in
  // chunks, forward and backward.
  LargeVector<NodeId> topo_order;
  SpilledColumn<NodeId, LargePageAllocator<NodeId>> order;
  EdgeCounts counts;
  JoinCounts joins;
  std::string ordering;            // "stream", "queue", "mixed", "none"
  bool inferred_enabled = false;

  std::size_t size() const { return work_count + join_reason.size(); }
  bool is_join(NodeId v) const { return v >= work_count; }
  // Measured start, duration (clamped at 0) and end; a join starts and ends at join_time.
  TimeNs start(NodeId v) const { return v < work_count ? work.start(v) : join_time[v - work_count]; }
  TimeNs duration(NodeId v) const { return v < work_count ? work.duration(v) : 0; }
  TimeNs end(NodeId v) const { return v < work_count ? work.end(v) : join_time[v - work_count]; }
  // The model idle time before v (see critical_path.hpp), given the latest end of its predecessors
  // (`measured_ready`, when it has any): 0 for a join, which waits for nothing but its predecessors.
  TimeNs gap(NodeId v, bool has_preds, TimeNs measured_ready) const {
    if (is_join(v)) return 0;
    if (!has_preds) return work.start(v) - trace_start;
    const TimeNs g = work.start(v) - measured_ready;
    return g > 0 ? g : 0;
  }
  TimeNs gap(NodeId v) const {
    TimeNs ready = std::numeric_limits<TimeNs>::min();
    for (uint32_t i = pred_offset[v]; i < pred_offset[v + 1]; ++i) ready = std::max(ready, end(preds[i]));
    return gap(v, pred_offset[v] != pred_offset[v + 1], ready);
  }
  // The total order stream order follows: start, then end, then id.
  bool earlier(NodeId a, NodeId b) const {
    const TimeNs sa = start(a), sb = start(b);
    if (sa != sb) return sa < sb;
    const TimeNs ea = end(a), eb = end(b);
    if (ea != eb) return ea < eb;
    return a < b;
  }
  NodeRef ref(NodeId v) const {
    return v < dispatch_count ? NodeRef{NodeKind::Dispatch, static_cast<Index>(v)}
                              : NodeRef{NodeKind::Copy, static_cast<Index>(v - dispatch_count)};
  }
};

Dag build_dag(const Trace& trace, const DagOptions& options);

// Forward pass over the DAG with the given per-node durations (re-timed); gaps stay as measured. Fills
// `finish` (N entries) with EF relative to the trace start and returns the makespan (max EF; 0 when the DAG is
// empty). Instantiated for TimeNs (exact) and double (scaled).
template <typename T>
T forward_pass(const Dag& dag, std::span<const T> durations, std::span<T> finish);
// The same with the measured durations (read from the trace: no per-node array).
TimeNs forward_pass_measured(const Dag& dag, std::span<TimeNs> finish);

// Backward pass with measured durations: fills `latest` (N entries) with the latest finish LF per node,
// relative to the trace start. Reads predecessors (each node pushes its latest start minus its gap to them).
void backward_pass(const Dag& dag, TimeNs makespan, std::span<TimeNs> latest);

// The critical path, in time order, ending at the work node with the latest finish (lowest id on ties) and
// walking back through binding predecessors (latest finish; ties: same lane, then lowest id). A join
// predecessor stands for its own binding work node (latest finish among the work it joins, lowest id on
// ties), so the path holds work nodes only. `links[i]` receives the kind of the edge path[i] -> path[i+1]
// (for a step through a join, the kind of the join's edge into path[i+1]).
std::vector<NodeId> walk_critical_path(const Dag& dag, std::span<const TimeNs> finish,
                                       std::vector<EdgeKind>& links);

}  // namespace rpl::analysis::dag
