// Schedule passes over a built DAG: forward (earliest finish), backward (latest finish), critical path.
#include <algorithm>

#include "analysis/dag.hpp"

namespace rpl::analysis::dag {

template <typename T>
T forward_pass(const Dag& dag, std::span<const T> durations, std::span<T> finish) {
  T makespan{};
  for (NodeId v : dag.topo_order) {
    const uint32_t b = dag.pred_offset[v], e = dag.pred_offset[v + 1];
    T ready{};  // sources are released at the trace start plus their gap
    for (uint32_t i = b; i < e; ++i) ready = std::max(ready, finish[dag.preds[i]]);
    finish[v] = ready + static_cast<T>(dag.gap[v]) + durations[v];
    makespan = std::max(makespan, finish[v]);
  }
  return makespan;
}

template TimeNs forward_pass<TimeNs>(const Dag&, std::span<const TimeNs>, std::span<TimeNs>);
template double forward_pass<double>(const Dag&, std::span<const double>, std::span<double>);

void backward_pass(const Dag& dag, TimeNs makespan, std::span<TimeNs> latest) {
  for (auto it = dag.topo_order.rbegin(); it != dag.topo_order.rend(); ++it) {
    const NodeId v = *it;
    // A successor w may start no later than LS(w) and needs its gap after v: LF(v) <= LS(w) - g(w).
    TimeNs lf = makespan;
    for (uint32_t i = dag.succ_offset[v]; i < dag.succ_offset[v + 1]; ++i) {
      const NodeId w = dag.succs[i];
      lf = std::min(lf, latest[w] - dag.duration[w] - dag.gap[w]);
    }
    latest[v] = lf;
  }
}

std::vector<NodeId> walk_critical_path(const Dag& dag, std::span<const TimeNs> finish,
                                       std::vector<EdgeKind>& links) {
  std::vector<NodeId> path;
  links.clear();
  if (dag.size() == 0) return path;
  NodeId v = 0;
  for (NodeId u = 1; u < dag.size(); ++u)
    if (finish[u] > finish[v]) v = u;
  path.push_back(v);
  while (true) {
    const uint32_t b = dag.pred_offset[v], e = dag.pred_offset[v + 1];
    if (b == e) break;
    // The binding predecessor: latest finish; ties prefer the same lane, then the lowest id.
    uint32_t best = b;
    for (uint32_t i = b + 1; i < e; ++i) {
      const NodeId u = dag.preds[i], w = dag.preds[best];
      if (finish[u] != finish[w]) {
        if (finish[u] > finish[w]) best = i;
        continue;
      }
      const bool u_same = dag.lane[u] == dag.lane[v], w_same = dag.lane[w] == dag.lane[v];
      if (u_same != w_same ? u_same : u < w) best = i;
    }
    links.push_back(dag.pred_kinds[best]);
    v = dag.preds[best];
    path.push_back(v);
  }
  std::reverse(path.begin(), path.end());
  std::reverse(links.begin(), links.end());
  return path;
}

}  // namespace rpl::analysis::dag
