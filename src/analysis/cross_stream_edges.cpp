#include "analysis/cross_stream_edges.hpp"

#include <algorithm>

#include "analysis/dag.hpp"

namespace rpl::analysis {

std::vector<DagEdge> recorded_cross_stream_edges(const Trace& trace) {
  // Built with the critical path's own builder, so the arrows drawn are exactly the edges analysed.
  const dag::Dag g = dag::build_dag(trace, DagOptions{});
  std::vector<DagEdge> out;
  for (dag::NodeId v = 0; v < g.size(); ++v)
    for (uint32_t i = g.pred_offset[v]; i < g.pred_offset[v + 1]; ++i) {
      EdgeKind k = g.pred_kinds[i];
      if (k == EdgeKind::StreamOrder || k == EdgeKind::Inferred) continue;
      if (g.lane[g.preds[i]] == g.lane[v]) continue;  // within one stream: stream order implies it
      out.push_back({g.ref(g.preds[i]), g.ref(v), k});
    }
  // Sorted by (to, from): node ids order dispatches before copies, then by index.
  std::sort(out.begin(), out.end(), [](const DagEdge& a, const DagEdge& b) {
    auto key = [](const NodeRef& n) { return std::pair{n.kind == NodeKind::Copy, n.index}; };
    return std::pair{key(a.to), key(a.from)} < std::pair{key(b.to), key(b.from)};
  });
  return out;
}

}  // namespace rpl::analysis
