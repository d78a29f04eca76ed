// Idle-gap attribution on the critical path; see idle_attribution.hpp.
#include "analysis/idle_attribution.hpp"

#include <algorithm>
#include <unordered_map>

#include "analysis/analysis_window.hpp"

namespace rpl::analysis {
namespace {

struct Span {
  TimeNs start, end;
};

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + v[mid]) / 2;
}

}  // namespace

IdleBreakdown attribute_idle(const Trace& trace, const CriticalPathResult& cp) {
  IdleBreakdown out;
  out.path_nodes = cp.path.size();
  if (cp.path.empty()) return out;

  // The launching call of each (process, correlation id): the outermost (earliest start) call.
  std::unordered_map<uint64_t, Span> launch;
  for (const ApiCall& a : trace.api_calls) {
    if (a.correlation_id == 0 || is_marker_range(trace, a)) continue;
    auto [it, inserted] = launch.try_emplace(launch_key(a.process, a.correlation_id), Span{a.start, a.end});
    if (!inserted && a.start < it->second.start) it->second = Span{a.start, a.end};
  }
  // Host synchronisation calls per process, by end.
  std::unordered_map<Index, std::vector<Span>> syncs;
  for (const SyncOp& y : trace.sync_ops)
    if (y.source == SyncSource::HostApi && y.kind != SyncKind::EventRecord && y.kind != SyncKind::StreamWaitEvent)
      syncs[y.process].push_back({y.start, y.end});
  for (auto& [p, v] : syncs)
    std::sort(v.begin(), v.end(), [](const Span& a, const Span& b) { return a.end < b.end; });
  auto synchronised = [&](Index process, TimeNs from, TimeNs to) {
    auto it = syncs.find(process);
    if (it == syncs.end()) return false;
    const auto& v = it->second;
    auto s = std::lower_bound(v.begin(), v.end(), from, [](const Span& a, TimeNs t) { return a.end < t; });
    return s != v.end() && s->start <= to;
  };

  struct NodeInfo {
    TimeNs start, end;
    Index process;
    int64_t correlation;
  };
  auto info = [&](const NodeRef& r) {
    if (r.kind == NodeKind::Dispatch) {
      const DispatchTable& d = trace.dispatches;
      return NodeInfo{d.start_of(r.index), d.end_of(r.index), d.process_of(r.index), d.correlation_id_of(r.index)};
    }
    const MemoryCopy& c = trace.copies[r.index];
    return NodeInfo{c.start, c.end, c.process, c.correlation_id};
  };

  std::vector<double> gaps, durations;
  gaps.reserve(cp.path.size());
  durations.reserve(cp.path.size());
  NodeInfo prev = info(cp.path.front());
  durations.push_back(static_cast<double>(prev.end - prev.start));
  const TimeNs first_start = prev.start;
  TimeNs last_end = prev.end;
  for (std::size_t i = 1; i < cp.path.size(); ++i) {
    const NodeInfo next = info(cp.path[i]);
    durations.push_back(static_cast<double>(next.end - next.start));
    last_end = std::max(last_end, next.end);
    const TimeNs a = prev.end, b = next.start;
    prev = next;
    const TimeNs gap = std::max<TimeNs>(0, b - a);
    gaps.push_back(static_cast<double>(gap));
    if (gap == 0) continue;
    ++out.gaps;
    out.idle_ns += static_cast<double>(gap);
    auto l = next.correlation != 0 ? launch.find(launch_key(next.process, next.correlation)) : launch.end();
    if (l == launch.end()) {
      out.unattributed_ns += static_cast<double>(gap);
      continue;
    }
    const TimeNs host_part = std::clamp<TimeNs>(l->second.start - a, 0, gap);
    out.launch_ns += static_cast<double>(gap - host_part);
    if (host_part == 0) continue;
    if (synchronised(next.process, a, l->second.start))
      out.sync_ns += static_cast<double>(host_part);
    else
      out.host_ns += static_cast<double>(host_part);
  }
  out.median_gap_ns = median_in_place(gaps);
  out.median_node_ns = median_in_place(durations);
  out.window_ns = static_cast<double>(last_end - first_start);
  out.launches_per_second = out.window_ns > 0 ? static_cast<double>(cp.path.size()) / (out.window_ns / 1e9) : 0;
  return out;
}

}  // namespace rpl::analysis
