#pragma once
// Internal to DAG construction: the node table and edge list that dag_build.cpp assembles and
// dag_sync.cpp adds the synchronisation (and opt-in inferred) edges to.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/dag.hpp"

namespace rpl::analysis::dag {

// Read access to per-node facts, compact where hot loops need them, from the trace otherwise (the times too:
// issue 32, no per-node copy of them).
struct NodeTable {
  const Trace& trace;
  std::size_t dispatch_count = 0;
  std::size_t node_count = 0;                 // dispatches + copies
  WorkTimes times;
  Lanes lane;
  // Dense process ids (in order of first appearance among the nodes) per interned launch and per copy, not per
  // node (issue 32: 4 bytes per node less while the edges are built); kNoNode for a launch no dispatch uses.
  LargeVector<uint32_t> process_by_launch, process_by_copy;
  std::unordered_map<Index, uint32_t> dense_process;  // Trace process index -> dense id
  uint32_t process_count = 0;
  // Per dense process, from fill_nodes' pass: whether its work uses more than one distinct stream, or has a
  // copy with a stream but no queue (assign_lanes then orders the process by stream).
  std::vector<uint8_t> by_stream;

  explicit NodeTable(const Trace& t)
      : trace(t), dispatch_count(t.dispatches.size()), node_count(t.dispatches.size() + t.copies.size()),
        times{&t, t.dispatches.size()} {}
  std::size_t size() const { return node_count; }
  uint32_t process(NodeId v) const {
    return v < dispatch_count ? process_by_launch[trace.dispatches.launch_of(v)] : process_by_copy[v - dispatch_count];
  }
  TimeNs start(NodeId v) const { return times.start(v); }
  TimeNs end(NodeId v) const { return times.end(v); }
  int64_t correlation(NodeId v) const {
    return v < dispatch_count ? trace.dispatches.correlation_id_of(v)
                              : trace.copies[v - dispatch_count].correlation_id;
  }
  uint32_t thread(NodeId v) const {
    return v < dispatch_count ? trace.dispatches.thread_of(v) : trace.copies[v - dispatch_count].thread;
  }
  Index stream(NodeId v) const {
    return v < dispatch_count ? trace.dispatches.stream_of(v) : trace.copies[v - dispatch_count].stream;
  }
  // The total order stream order follows: start, then end, then id.
  bool earlier(NodeId a, NodeId b) const {
    const TimeNs sa = start(a), sb = start(b);
    if (sa != sb) return sa < sb;
    const TimeNs ea = end(a), eb = end(b);
    if (ea != eb) return ea < eb;
    return a < b;
  }
};

// Cross-stream edges (sync ops, inferred). Stream order is kept apart, as each node's lane predecessor.
struct Edge {
  NodeId dst, src;
  EdgeKind kind;
  auto operator<=>(const Edge&) const = default;  // by target, then source, then kind
};
// Edges may end at or leave join nodes (see dag.hpp): ids from `first_join` on, created by add_join.
struct EdgeList {
  LargeVector<Edge> edges;
  NodeId first_join = 0;                 // the number of work nodes; set before any join is added
  LargeVector<JoinReason> join_reasons;  // per join node, in id order

  void add(NodeId from, NodeId to, EdgeKind k) {
    if (from == kNoNode || to == kNoNode || from == to) return;
    edges.push_back(Edge{to, from, k});
  }
  // A new join node (zero duration). Its predecessors and successors are ordinary edges added with add().
  // Joins must be created in an order where every join's join predecessors come first (lower id).
  NodeId add_join(JoinReason reason);
  bool is_join(NodeId v) const { return v >= first_join; }
  std::size_t size() const { return edges.size(); }
};

// Event record/wait, host synchronisation and GPU barrier edges from Trace::sync_ops. A synchronisation
// that waits for work and releases later work becomes one join node (JoinReason::HostSync, or ::GpuBarrier
// for GPU-side waits) unless `pairwise` asks for the former form, an edge per (waited, released) pair
// (kept for tests that compare the two).
void add_sync_edges(const NodeTable& nodes, EdgeList& edges, bool pairwise = false);

// Opt-in: for each node with no cross-lane predecessor yet, an edge from the latest-ending node of
// another lane of the same process that ended at most kInferWindowNs before it started.
inline constexpr TimeNs kInferWindowNs = 5000;
void add_inferred_edges(const NodeTable& nodes, EdgeList& edges);

}  // namespace rpl::analysis::dag

namespace rpl::analysis::dag {

// The first half of the DAG build: the nodes, their stream-order lanes and the cross-stream edges (recorded and
// inferred, joins included), before stream order is resolved and the predecessor arrays are built. Both the
// streamed schedule and the CSR build (build_dag) start from it.
struct EdgeSet {
  std::unique_ptr<NodeTable> nodes;
  EdgeList extra;
  TimeNs trace_start = 0, trace_end = 0;
  std::string ordering;
  bool inferred_enabled = false;
};
EdgeSet build_edges(const Trace& trace, const DagOptions& options);
// The second half: stream order, the predecessor arrays, cycle breaking, the topological order.
Dag build_dag(EdgeSet&& edges);

// The schedule of the DAG in one forward and one backward pass over the work in submission order (dispatches
// and copies each in id order, merged by correlation id), with state per lane, per recorded edge and per join
// instead of arrays per node (issue 32); the earliest finishes wait in a temporary file between the passes.
// Every result equals the CSR passes' (any topological order gives the same schedule, and the ties of the path
// are broken by id and lane, not by order). Empty (nullopt) when that order is not a topological order of the
// DAG: a lane out of start order in it, an edge or a join that points backward. The caller then builds the CSR
// DAG (build_dag) from the same edges.
struct StreamedSchedule {
  TimeNs makespan = 0;
  std::vector<NodeId> path;        // in time order, as walk_critical_path
  std::vector<EdgeKind> links;
  TimeNs first_finish = 0;         // earliest finish of path.front()
  EdgeCounts counts;
  std::vector<KernelSlack> kernel_slack;
  // With node rows only, per work node by id: earliest start (absolute), slack, on the path.
  std::vector<TimeNs> earliest_start, slack;
  std::vector<uint8_t> on_path;
};
std::optional<StreamedSchedule> streamed_schedule(EdgeSet& edges, bool node_rows);
// What-if's forward pass the same way: the makespan with the given durations of the work nodes (gaps as measured;
// the arithmetic of forward_pass<double>). Empty when submission order is not a topological order.
std::optional<double> streamed_makespan(EdgeSet& edges, const std::function<double(NodeId)>& duration);

}  // namespace rpl::analysis::dag
