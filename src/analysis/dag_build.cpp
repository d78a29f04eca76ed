// DAG construction: nodes, stream order, CSR edges, topological order, cycle breaking, model gaps.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <utility>

#include "analysis/dag_edges.hpp"
#include "analysis/fast_sort.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/resident_memory.hpp"

namespace rpl::analysis::dag {
namespace {

constexpr EdgeKind kDroppedEdge = static_cast<EdgeKind>(255);

// A stream-order lane: a stream, a (agent, queue) pair, or "neither" within one process.
enum class LaneType : uint32_t { Stream, Queue, Unknown };
struct LaneKey {
  uint32_t process;
  LaneType type;
  uint32_t a;  // stream, or agent
  uint32_t b;  // queue
  bool operator==(const LaneKey&) const = default;
};
struct LaneKeyHash {
  std::size_t operator()(const LaneKey& k) const {
    uint64_t h = (uint64_t{k.process} << 34) ^ (uint64_t(k.type) << 32) ^ k.a;
    h = h * 0x9E3779B97F4A7C15ull ^ k.b;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

// The GPU a copy runs on, for queue-order purposes: the GPU end of the copy (destination first).
Index copy_agent(const Trace& trace, const MemoryCopy& c) {
  auto is_gpu = [&](Index a) { return a < trace.agents.size() && trace.agents[a].is_gpu; };
  if (is_gpu(c.dst_agent)) return c.dst_agent;
  if (is_gpu(c.src_agent)) return c.src_agent;
  return c.dst_agent;
}

void fill_nodes(NodeTable& nodes) {
  const Trace& trace = nodes.trace;
  const std::size_t n = nodes.size();
  if (n >= kNoNode) throw Error(ExitCode::Internal, "critical path: too many nodes (" + std::to_string(n) + ")");
  nodes.process_by_launch.assign(trace.dispatches.launch_count(), kNoNode);
  nodes.process_by_copy.resize(trace.copies.size());
  Index last_process = kNoIndex;
  uint32_t last_dense = 0;
  auto dense = [&](Index p) {
    if (p == last_process && nodes.process_count > 0) return last_dense;
    auto [it, inserted] = nodes.dense_process.try_emplace(p, nodes.process_count);
    if (inserted) ++nodes.process_count;
    last_process = p;
    last_dense = it->second;
    return last_dense;
  };
  // A process orders by stream when its work uses more than one distinct stream, or when some of its work
  // has a stream but no queue (copies, as rocprofv3 and our CUDA collector write them): queue lanes would
  // then split one stream into a kernel chain and a copy chain with no order between them. Found in this pass
  // over the records rather than another (issue 32).
  std::vector<Index> first_stream;
  auto set = [&](uint32_t& dense_of, Index process, Index stream, bool queueless_copy) {
    const uint32_t p = dense(process);
    dense_of = p;
    if (p >= first_stream.size()) {
      first_stream.resize(p + 1, kNoIndex);
      nodes.by_stream.resize(p + 1, 0);
    }
    if (stream == kNoIndex) return;
    if (first_stream[p] == kNoIndex) first_stream[p] = stream;
    else if (first_stream[p] != stream) nodes.by_stream[p] = 1;
    if (queueless_copy) nodes.by_stream[p] = 1;
  };
  for (std::size_t i = 0; i < trace.dispatches.size(); ++i) {
    const DispatchPlacement& p = trace.dispatches.placement_of(i);
    set(nodes.process_by_launch[trace.dispatches.launch_of(i)], p.process, p.stream, false);
  }
  for (std::size_t i = 0; i < trace.copies.size(); ++i) {
    const MemoryCopy& c = trace.copies[i];
    set(nodes.process_by_copy[i], c.process, c.stream, c.queue == kNoIndex);
  }
}

// Chooses stream or queue order per process, assigns lanes and returns the ordering label.
std::string assign_lanes(NodeTable& nodes) {
  const Trace& trace = nodes.trace;
  const std::size_t n = nodes.size();
  // Which processes order by stream: found by fill_nodes.
  const std::vector<uint8_t>& by_stream = nodes.by_stream;
  std::size_t stream_processes = 0;
  for (uint8_t b : by_stream) stream_processes += b;

  // Lanes numbered in order of first appearance: the launches' ids are in that order among the dispatches, and
  // the copies follow them. One lookup per launch and per copy, none per dispatch (issue 32).
  std::unordered_map<LaneKey, uint32_t, LaneKeyHash> lane_ids;
  auto lane_of = [&](uint32_t p, Index stream, Index queue, Index agent) {
    LaneKey key{p, LaneType::Unknown, 0, 0};
    const bool prefer_stream = by_stream[p] != 0;
    if (stream != kNoIndex && (prefer_stream || queue == kNoIndex)) key = {p, LaneType::Stream, stream, 0};
    else if (queue != kNoIndex) key = {p, LaneType::Queue, agent, queue};
    return lane_ids.try_emplace(key, static_cast<uint32_t>(lane_ids.size())).first->second;
  };
  Lanes& lanes = nodes.lane;
  lanes.dispatches = &trace.dispatches;
  lanes.dispatch_count = nodes.dispatch_count;
  lanes.work_count = n;
  lanes.by_launch.assign(trace.dispatches.launch_count(), kNoNode);
  for (Index l = 0; l < lanes.by_launch.size(); ++l) {
    const DispatchPlacement& d = trace.dispatches.launch_placement(l);
    auto dense = nodes.dense_process.find(d.process);
    if (dense == nodes.dense_process.end()) continue;  // a launch no dispatch has any more (DispatchTable::set)
    lanes.by_launch[l] = lane_of(dense->second, d.stream, d.queue, d.agent);
  }
  lanes.by_copy.resize(trace.copies.size());
  for (std::size_t i = 0; i < trace.copies.size(); ++i) {
    const MemoryCopy& c = trace.copies[i];
    lanes.by_copy[i] = lane_of(nodes.process_by_copy[i], c.stream, c.queue,
                               c.queue == kNoIndex ? kNoIndex : copy_agent(trace, c));
  }
  lanes.count = static_cast<uint32_t>(lane_ids.size());
  if (nodes.process_count == 0) return "none";
  if (stream_processes == nodes.process_count) return "stream";
  if (stream_processes == 0) return "queue";
  return "mixed";
}

// Each node's predecessor in its lane, the lanes being chained in (start, end, id) order.
LargeVector<NodeId> lane_predecessors(const NodeTable& nodes, LargeVector<uint32_t>& order) {
  const std::size_t n = nodes.size();
  const uint32_t lane_count = nodes.lane.count;
  std::vector<uint32_t> offset(lane_count + 1, 0);
  for (NodeId v = 0; v < n; ++v) ++offset[nodes.lane[v] + 1];
  std::partial_sum(offset.begin(), offset.end(), offset.begin());
  order.resize(n);
  for (NodeId v = 0; v < n; ++v) order[offset[nodes.lane[v]]++] = v;  // offset[l] ends at lane l's end
  auto earlier = [&](NodeId a, NodeId b) { return nodes.earlier(a, b); };
  LargeVector<NodeId> prev(n);
  uint32_t begin = 0;
  for (uint32_t l = 0; l < lane_count; ++l) {
    auto first = order.begin() + begin, last = order.begin() + offset[l];
    // Traces are nearly always in time order per lane, or a few runs of it (dispatches, then copies).
    sort_runs(first, last, earlier);
    NodeId before = kNoNode;
    for (auto it = first; it != last; ++it) prev[*it] = before, before = *it;
    begin = offset[l];
  }
  return prev;
}

// Predecessor CSR of `n` nodes: the lane predecessor first (stream order), then the cross-stream edges by
// source. A duplicate (source, target) pair keeps its lowest kind, stream order before all others. Nodes past
// the end of `lane_prev` (joins) have no lane predecessor.
void build_preds(const LargeVector<NodeId>& lane_prev, std::size_t n, EdgeList& extra, Dag& dag) {
  std::sort(extra.edges.begin(), extra.edges.end());
  const std::size_t upper = n + extra.size();
  if (upper >= std::numeric_limits<uint32_t>::max())
    throw Error(ExitCode::Internal, "critical path: too many edges (" + std::to_string(upper) + ")");
  dag.pred_offset.resize(n + 1);
  dag.preds.reserve(upper);
  dag.pred_kinds.reserve(upper);
  auto push = [&](NodeId u, EdgeKind k) {
    dag.preds.push_back(u);
    dag.pred_kinds.push_back(k);
  };
  std::size_t j = 0;
  const auto& e = extra.edges;
  for (NodeId v = 0; v < n; ++v) {
    dag.pred_offset[v] = static_cast<uint32_t>(dag.preds.size());
    const NodeId prev = v < lane_prev.size() ? lane_prev[v] : kNoNode;
    if (prev != kNoNode) push(prev, EdgeKind::StreamOrder);
    for (; j < e.size() && e[j].dst == v; ++j) {
      if (e[j].src == prev || (j > 0 && e[j - 1].dst == v && e[j - 1].src == e[j].src)) continue;
      push(e[j].src, e[j].kind);
    }
  }
  dag.pred_offset[n] = static_cast<uint32_t>(dag.preds.size());
  extra = EdgeList{};
}

// Removes predecessor entries marked kDroppedEdge.
void compact_preds(Dag& dag) {
  const std::size_t n = dag.size();
  auto& off = dag.pred_offset;
  uint32_t write = 0, begin = off[0];
  for (std::size_t v = 0; v < n; ++v) {
    const uint32_t end = off[v + 1];
    off[v] = write;
    for (uint32_t i = begin; i < end; ++i) {
      if (dag.pred_kinds[i] == kDroppedEdge) continue;
      dag.preds[write] = dag.preds[i];
      dag.pred_kinds[write++] = dag.pred_kinds[i];
    }
    begin = end;
  }
  off[n] = write;
  dag.preds.resize(write);
  dag.pred_kinds.resize(write);
}

void build_succs(Dag& dag) {
  const std::size_t n = dag.size();
  auto& off = dag.succ_offset;
  off.assign(n + 1, 0);
  for (NodeId u : dag.preds) ++off[u + 1];
  std::partial_sum(off.begin(), off.end(), off.begin());
  dag.succs.resize(dag.preds.size());
  // Visiting targets in id order leaves each successor list sorted by id. Filling advances off[u] to the
  // end of u's list, i.e. the start of u + 1's; shifting by one restores the starts.
  for (NodeId v = 0; v < n; ++v)
    for (uint32_t i = dag.pred_offset[v]; i < dag.pred_offset[v + 1]; ++i) dag.succs[off[dag.preds[i]]++] = v;
  for (std::size_t u = n; u > 0; --u) off[u] = off[u - 1];
  off[0] = 0;
}

// Kahn's algorithm; leaves in `remaining` the in-degrees left over (non-zero exactly for nodes on or after
// a cycle).
void topological_order(Dag& dag, LargeVector<uint32_t>& remaining) {
  const std::size_t n = dag.size();
  remaining.resize(n);
  dag.topo_order.clear();
  dag.topo_order.reserve(n);
  for (NodeId v = 0; v < n; ++v) {
    remaining[v] = dag.pred_offset[v + 1] - dag.pred_offset[v];
    if (remaining[v] == 0) dag.topo_order.push_back(v);
  }
  for (std::size_t i = 0; i < dag.topo_order.size(); ++i) {
    const NodeId u = dag.topo_order[i];
    for (uint32_t j = dag.succ_offset[u]; j < dag.succ_offset[u + 1]; ++j)
      if (--remaining[dag.succs[j]] == 0) dag.topo_order.push_back(dag.succs[j]);
  }
}

// Strongly connected components (iterative Tarjan) of the subgraph induced by `in_subgraph`.
std::vector<uint32_t> strong_components(const Dag& dag, const std::vector<uint8_t>& in_subgraph) {
  const std::size_t n = dag.size();
  constexpr uint32_t kUnvisited = kNoNode;
  std::vector<uint32_t> index(n, kUnvisited), low(n, 0), component(n, kNoNode);
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<NodeId> stack;
  std::vector<std::pair<NodeId, uint32_t>> calls;  // node, next successor slot
  uint32_t counter = 0, components = 0;
  auto visit = [&](NodeId v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on_stack[v] = 1;
    calls.emplace_back(v, dag.succ_offset[v]);
  };
  for (NodeId root = 0; root < n; ++root) {
    if (!in_subgraph[root] || index[root] != kUnvisited) continue;
    visit(root);
    while (!calls.empty()) {
      const NodeId v = calls.back().first;
      const uint32_t slot = calls.back().second;
      if (slot < dag.succ_offset[v + 1]) {
        ++calls.back().second;
        const NodeId w = dag.succs[slot];
        if (!in_subgraph[w]) continue;
        if (index[w] == kUnvisited) visit(w);
        else if (on_stack[w]) low[v] = std::min(low[v], index[w]);
        continue;
      }
      if (low[v] == index[v]) {
        NodeId w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          component[w] = components;
        } while (w != v);
        ++components;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
    }
  }
  return component;
}

// Contradictory records (e.g. an event wait whose target ran before the recorded work) can close a cycle.
// Every cycle contains an edge that goes backward in (start, end, id) order, and stream-order edges never
// do; dropping the backward edges inside each strongly connected component breaks all cycles and is
// deterministic.
std::size_t break_cycles(Dag& dag, const LargeVector<uint32_t>& remaining) {
  const std::size_t n = dag.size();
  std::vector<uint8_t> unresolved(n, 0);
  for (NodeId v = 0; v < n; ++v) unresolved[v] = remaining[v] > 0;
  const std::vector<uint32_t> component = strong_components(dag, unresolved);
  std::size_t dropped = 0;
  for (NodeId v = 0; v < n; ++v) {
    if (!unresolved[v]) continue;
    for (uint32_t i = dag.pred_offset[v]; i < dag.pred_offset[v + 1]; ++i) {
      const NodeId u = dag.preds[i];
      if (unresolved[u] && component[u] == component[v] && dag.earlier(v, u)) {
        dag.pred_kinds[i] = kDroppedEdge;
        ++dropped;
      }
    }
  }
  compact_preds(dag);
  build_succs(dag);
  return dropped;
}

void count_edges(Dag& dag) {
  EdgeCounts& c = dag.counts;
  for (EdgeKind k : dag.pred_kinds) {
    switch (k) {
      case EdgeKind::StreamOrder: ++c.stream_order; break;
      case EdgeKind::EventWait: ++c.event_wait; break;
      case EdgeKind::HostSync: ++c.host_sync; break;
      case EdgeKind::Barrier: ++c.barrier; break;
      case EdgeKind::Inferred: ++c.inferred; break;
    }
  }
}

// Join nodes: zero long, at the latest end of their predecessors (so their gap is 0 and the measured
// gaps of the work they release are those an edge from each predecessor would give). Joins have higher ids
// than their join predecessors, so one pass in id order sees every predecessor placed.
void place_joins(Dag& dag) {
  const std::size_t n = dag.work_count, total = dag.size();
  dag.join_time.resize(total - n);
  for (std::size_t v = n; v < total; ++v) {
    TimeNs at = std::numeric_limits<TimeNs>::min();
    for (uint32_t i = dag.pred_offset[v]; i < dag.pred_offset[v + 1]; ++i) at = std::max(at, dag.end(dag.preds[i]));
    dag.join_time[v - n] = dag.pred_offset[v] == dag.pred_offset[v + 1] ? dag.trace_start : at;
  }
}

// A topological order by depth-first search over the predecessors (no successor arrays: issue 32, 8 bytes per
// node less at the run's peak). Returns false, the order incomplete, when the predecessors close a cycle. Any
// topological order gives the same schedule: each finish is a maximum over the node's predecessors.
bool topological_order_by_preds(Dag& dag) {
  const std::size_t n = dag.size();
  dag.topo_order.clear();
  dag.topo_order.reserve(n);
  enum : uint8_t { kNew, kOpen, kDone };
  LargeVector<uint8_t> state(n, kNew);
  std::vector<std::pair<NodeId, uint32_t>> stack;  // node, next predecessor slot
  for (NodeId root = 0; root < n; ++root) {
    if (state[root] != kNew) continue;
    state[root] = kOpen;
    stack.emplace_back(root, dag.pred_offset[root]);
    while (!stack.empty()) {
      const NodeId v = stack.back().first;
      const uint32_t slot = stack.back().second;
      if (slot < dag.pred_offset[v + 1]) {
        ++stack.back().second;
        const NodeId u = dag.preds[slot];
        if (state[u] == kOpen) return false;  // a cycle
        if (state[u] == kNew) {
          state[u] = kOpen;
          stack.emplace_back(u, dag.pred_offset[u]);
        }
        continue;
      }
      state[v] = kDone;
      dag.topo_order.push_back(v);
      stack.pop_back();
    }
  }
  return true;
}

// Logs the time of each build phase at debug level, and the resident memory (now, and the peak so far).
class PhaseTimer {
 public:
  void lap(const char* phase) {
    auto now = std::chrono::steady_clock::now();
    if (log::level() < log::Level::Debug) return;
    const ResidentMemory memory = resident_memory();
    log::debug("critical path: {} {:.3f} s, RSS {} MB (peak so far {} MB)", phase,
               std::chrono::duration<double>(now - last_).count(), memory.now_kb / 1024, memory.peak_kb / 1024);
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

EdgeSet build_edges(const Trace& trace, const DagOptions& options) {
  PhaseTimer timer;
  EdgeSet es;
  es.nodes = std::make_unique<NodeTable>(trace);
  NodeTable& nodes = *es.nodes;
  fill_nodes(nodes);
  es.ordering = assign_lanes(nodes);
  timer.lap("nodes and lanes");
  es.inferred_enabled = options.infer_cross_stream;
  const std::size_t n = nodes.size();
  if (n > 0) {
    es.trace_start = nodes.start(0);
    es.trace_end = nodes.end(0);
    for (NodeId v = 1; v < n; ++v) {
      es.trace_start = std::min(es.trace_start, nodes.start(v));
      es.trace_end = std::max(es.trace_end, nodes.end(v));
    }
  }
  es.extra.first_join = static_cast<NodeId>(n);
  add_sync_edges(nodes, es.extra, options.pairwise_host_sync);
  if (options.infer_cross_stream) add_inferred_edges(nodes, es.extra);
  timer.lap("sync edges");
  return es;
}

Dag build_dag(const Trace& trace, const DagOptions& options) { return build_dag(build_edges(trace, options)); }

Dag build_dag(EdgeSet&& es) {
  PhaseTimer timer;
  NodeTable& nodes = *es.nodes;
  EdgeList& extra = es.extra;
  Dag dag;
  dag.ordering = es.ordering;
  dag.work = nodes.times;
  dag.dispatch_count = nodes.dispatch_count;
  dag.inferred_enabled = es.inferred_enabled;
  const std::size_t n = nodes.size();
  dag.work_count = n;
  dag.trace_start = es.trace_start;
  dag.trace_end = es.trace_end;
  // Stream order after the sync edges, so that the lane predecessors never coexist with their lists (issue 32).
  LargeVector<uint32_t> scratch;  // one temporary reused by the phases below (released between them)
  LargeVector<NodeId> lane_prev = lane_predecessors(nodes, scratch);
  LargeVector<uint32_t>().swap(scratch);
  timer.lap("stream order");

  dag.join_reason = std::move(extra.join_reasons);
  const std::size_t joins = dag.join_reason.size();
  for (JoinReason r : dag.join_reason) ++dag.joins.by_reason[static_cast<std::size_t>(r)];
  // Issue 32: no resize of lane_prev for the joins (that doubled its capacity), and it is released at once.
  build_preds(lane_prev, n + joins, extra, dag);
  LargeVector<NodeId>().swap(lane_prev);
  dag.lane = std::move(nodes.lane);
  place_joins(dag);
  timer.lap("edge arrays");

  if (!topological_order_by_preds(dag)) {
    // A cycle (rare: contradictory records): Kahn's algorithm over successors finds the nodes on or after it,
    // break_cycles drops their backward edges, and the order is taken again.
    build_succs(dag);
    topological_order(dag, scratch);
    dag.counts.cycle_dropped = break_cycles(dag, scratch);
    topological_order(dag, scratch);
    if (dag.topo_order.size() < dag.size())
      throw Error(ExitCode::Internal, "critical path: a dependency cycle survived cycle breaking");
    log::warn("critical path: the recorded dependencies form a cycle (contradictory timestamps); dropped {} "
              "edge(s) that point backward in time",
              dag.counts.cycle_dropped);
    LargeVector<uint32_t>().swap(dag.succ_offset);
    LargeVector<NodeId>().swap(dag.succs);
  }
  LargeVector<uint32_t>().swap(scratch);
  count_edges(dag);
  // A large DAG's order waits in a temporary file: the passes read it in chunks (issue 32).
  constexpr std::size_t kSpillFrom = std::size_t{1} << 17;
  const bool spill = dag.topo_order.size() >= kSpillFrom;
  dag.order = SpilledColumn<NodeId, LargePageAllocator<NodeId>>(std::move(dag.topo_order), spill);
  dag.topo_order = {};
  timer.lap("topological order");
  return dag;
}

}  // namespace rpl::analysis::dag
