// Schedule passes over a built DAG: forward (earliest finish), backward (latest finish), critical path.
#include <algorithm>
#include <limits>

#include "analysis/dag.hpp"
#include "support/errors.hpp"

namespace rpl::analysis::dag {

namespace {

// Calls visit(v) for every node in topological order (`backward`: in reverse).
template <typename Visit>
void in_topological_order(const Dag& dag, bool backward, Visit visit) {
  auto chunk = [&](std::size_t, std::span<const NodeId> nodes) {
    if (backward)
      for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) visit(*it);
    else
      for (NodeId v : nodes) visit(v);
  };
  if (!(backward ? dag.order.for_each_chunk_backward(chunk) : dag.order.for_each_chunk(chunk)))
    throw Error(ExitCode::Internal, "critical path: the temporary file of the topological order could not be read back");
}

// Earliest finish of every node in topological order: the latest finish of its predecessors, then its gap
// (from the measured ends of the same predecessors), then its duration.
template <typename T, typename DurationOf>
T forward_schedule(const Dag& dag, DurationOf duration_of, std::span<T> finish) {
  T makespan{};
  in_topological_order(dag, false, [&](NodeId v) {
    const uint32_t b = dag.pred_offset[v], e = dag.pred_offset[v + 1];
    T ready{};  // sources are released at the trace start plus their gap
    TimeNs measured_ready = std::numeric_limits<TimeNs>::min();
    for (uint32_t i = b; i < e; ++i) {
      const NodeId u = dag.preds[i];
      ready = std::max(ready, finish[u]);
      measured_ready = std::max(measured_ready, dag.end(u));
    }
    finish[v] = ready + static_cast<T>(dag.gap(v, b != e, measured_ready)) + duration_of(v);
    makespan = std::max(makespan, finish[v]);
  });
  return makespan;
}

}  // namespace

template <typename T>
T forward_pass(const Dag& dag, std::span<const T> durations, std::span<T> finish) {
  return forward_schedule<T>(dag, [&](NodeId v) { return durations[v]; }, finish);
}

template TimeNs forward_pass<TimeNs>(const Dag&, std::span<const TimeNs>, std::span<TimeNs>);
template double forward_pass<double>(const Dag&, std::span<const double>, std::span<double>);

TimeNs forward_pass_measured(const Dag& dag, std::span<TimeNs> finish) {
  return forward_schedule<TimeNs>(dag, [&](NodeId v) { return dag.duration(v); }, finish);
}

void backward_pass(const Dag& dag, TimeNs makespan, std::span<TimeNs> latest) {
  std::fill(latest.begin(), latest.end(), makespan);
  // Reverse topological order: every successor of v has pushed to it before v is visited, so latest[v] is
  // final. A successor w may start no later than LS(w) and needs its gap after v: LF(v) <= LS(w) - g(w).
  in_topological_order(dag, true, [&](NodeId v) {
    const uint32_t b = dag.pred_offset[v], e = dag.pred_offset[v + 1];
    if (b == e) return;
    TimeNs measured_ready = std::numeric_limits<TimeNs>::min();
    for (uint32_t i = b; i < e; ++i) measured_ready = std::max(measured_ready, dag.end(dag.preds[i]));
    const TimeNs bound = latest[v] - dag.duration(v) - dag.gap(v, true, measured_ready);
    for (uint32_t i = b; i < e; ++i) latest[dag.preds[i]] = std::min(latest[dag.preds[i]], bound);
  });
}

// For each join, the work node it stands for on a path: among the work it joins (directly or through
// earlier joins) with its finish, the lowest id. Entries for work nodes are the nodes themselves.
std::vector<NodeId> join_representatives(const Dag& dag, std::span<const TimeNs> finish) {
  std::vector<NodeId> rep(dag.size() - dag.work_count, kNoNode);
  auto of = [&](NodeId u) { return dag.is_join(u) ? rep[u - dag.work_count] : u; };
  for (NodeId v = static_cast<NodeId>(dag.work_count); v < dag.size(); ++v) {  // join preds have lower ids
    NodeId best = kNoNode;
    for (uint32_t i = dag.pred_offset[v]; i < dag.pred_offset[v + 1]; ++i) {
      const NodeId u = dag.preds[i];
      if (finish[u] != finish[v]) continue;
      const NodeId w = of(u);
      if (w != kNoNode && (best == kNoNode || w < best)) best = w;
    }
    rep[v - dag.work_count] = best;
  }
  return rep;
}

std::vector<NodeId> walk_critical_path(const Dag& dag, std::span<const TimeNs> finish,
                                       std::vector<EdgeKind>& links) {
  std::vector<NodeId> path;
  links.clear();
  if (dag.work_count == 0) return path;
  const std::vector<NodeId> rep = join_representatives(dag, finish);
  // The work node a predecessor stands for (itself, or a join's representative).
  auto work_of = [&](NodeId u) { return dag.is_join(u) ? rep[u - dag.work_count] : u; };
  NodeId v = 0;
  for (NodeId u = 1; u < dag.work_count; ++u)
    if (finish[u] > finish[v]) v = u;
  path.push_back(v);
  while (true) {
    const uint32_t b = dag.pred_offset[v], e = dag.pred_offset[v + 1];
    // The binding predecessor: latest finish; ties prefer the same lane, then the lowest id (a join
    // compares as the work node it stands for).
    uint32_t best = e;
    for (uint32_t i = b; i < e; ++i) {
      if (work_of(dag.preds[i]) == kNoNode) continue;  // a join of nothing (cannot bind)
      if (best == e) {
        best = i;
        continue;
      }
      const NodeId u = dag.preds[i], w = dag.preds[best];
      if (finish[u] != finish[w]) {
        if (finish[u] > finish[w]) best = i;
        continue;
      }
      const NodeId uw = work_of(u), ww = work_of(w);
      const bool u_same = dag.lane[uw] == dag.lane[v], w_same = dag.lane[ww] == dag.lane[v];
      if (u_same != w_same ? u_same : uw < ww) best = i;
    }
    if (best == e) break;
    links.push_back(dag.pred_kinds[best]);
    v = work_of(dag.preds[best]);
    path.push_back(v);
  }
  std::reverse(path.begin(), path.end());
  std::reverse(links.begin(), links.end());
  return path;
}

}  // namespace rpl::analysis::dag
