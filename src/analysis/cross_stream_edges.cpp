#include "analysis/cross_stream_edges.hpp"

#include <algorithm>
#include <tuple>

#include "analysis/dag.hpp"

namespace rpl::analysis {

std::vector<DagEdge> recorded_cross_stream_edges(const Trace& trace) {
  // Built with the critical path's own builder, so the arrows drawn are exactly the edges analysed.
  const dag::Dag g = dag::build_dag(trace, DagOptions{});
  // A join (host synchronisation) is drawn as one arrow into each work node it releases, from the work it
  // waited for that ended last (lowest id on ties): what the host's wait actually ended on. Join
  // predecessors have lower ids, so one pass in id order finds each join's latest-ending work.
  std::vector<dag::NodeId> last_waited(g.size() - g.work_count, dag::kNoNode);
  auto work_of = [&](dag::NodeId u) { return g.is_join(u) ? last_waited[u - g.work_count] : u; };
  for (dag::NodeId v = static_cast<dag::NodeId>(g.work_count); v < g.size(); ++v) {
    dag::NodeId best = dag::kNoNode;
    for (uint32_t i = g.pred_offset[v]; i < g.pred_offset[v + 1]; ++i) {
      const dag::NodeId u = work_of(g.preds[i]);
      if (u != dag::kNoNode && (best == dag::kNoNode || g.end(u) > g.end(best) || (g.end(u) == g.end(best) && u < best)))
        best = u;
    }
    last_waited[v - g.work_count] = best;
  }
  std::vector<DagEdge> out;
  for (dag::NodeId v = 0; v < g.work_count; ++v)
    for (uint32_t i = g.pred_offset[v]; i < g.pred_offset[v + 1]; ++i) {
      EdgeKind k = g.pred_kinds[i];
      if (k == EdgeKind::StreamOrder || k == EdgeKind::Inferred) continue;
      const dag::NodeId u = work_of(g.preds[i]);
      if (u == dag::kNoNode || g.lane[u] == g.lane[v]) continue;  // within one stream: stream order implies it
      out.push_back({g.ref(u), g.ref(v), k});
    }
  // Sorted by (to, from): node ids order dispatches before copies, then by index.
  auto key = [](const NodeRef& n) { return std::pair{n.kind == NodeKind::Copy, n.index}; };
  std::sort(out.begin(), out.end(), [&](const DagEdge& a, const DagEdge& b) {
    return std::tuple{key(a.to), key(a.from), a.kind} < std::tuple{key(b.to), key(b.from), b.kind};
  });
  // Two joins may stand for the same pair: one arrow, the lowest kind.
  out.erase(std::unique(out.begin(), out.end(),
                        [](const DagEdge& a, const DagEdge& b) { return a.to == b.to && a.from == b.from; }),
            out.end());
  return out;
}

}  // namespace rpl::analysis
