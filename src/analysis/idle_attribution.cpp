// Idle-gap attribution on the critical path; see idle_attribution.hpp.
#include "analysis/idle_attribution.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "analysis/analysis_window.hpp"
#include "analysis/group_medians.hpp"

namespace rpl::analysis {
namespace {

struct Span {
  TimeNs start, end;
};

constexpr uint32_t kNoCall = UINT32_MAX;

}  // namespace

IdleBreakdown attribute_idle(const Trace& trace, const CriticalPathResult& cp) {
  IdleBreakdown out;
  out.path_nodes = cp.path.size();
  if (cp.path.empty()) return out;

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
  // Calls f(step, previous, next, gap) for each step of the path (step 0: the first node alone, no gap).
  auto for_each_step = [&](auto f) {
    NodeInfo prev = info(cp.path.front());
    f(std::size_t{0}, prev, prev, TimeNs{0});
    for (std::size_t i = 1; i < cp.path.size(); ++i) {
      const NodeInfo next = info(cp.path[i]);
      f(i, prev, next, std::max<TimeNs>(0, next.start - prev.end));
      prev = next;
    }
  };

  // The launching call of each (process, correlation id) that follows a gap: the outermost (earliest start; the
  // first of equal ones) call. Indexed by whichever side is smaller, the gaps' keys or the calls that could launch
  // (issue 32: not a map of every call, tens of bytes each; and not 12 bytes per gap of a path of millions when the
  // trace holds few calls with correlation ids), each counted first so that its array is allocated once.
  auto candidate = [&](const ApiCall& a) { return a.correlation_id != 0 && !is_marker_range(trace, a); };
  auto keyed_gap = [](std::size_t i, const NodeInfo& next, TimeNs gap) { return i > 0 && gap > 0 && next.correlation != 0; };
  std::size_t gap_keys = 0, call_keys = 0;
  for_each_step([&](std::size_t i, const NodeInfo&, const NodeInfo& next, TimeNs gap) { gap_keys += keyed_gap(i, next, gap); });
  for (const ApiCall& a : trace.api_calls) call_keys += candidate(a);
  struct KeyedCall {
    uint64_t key;
    uint32_t call;
  };
  std::vector<KeyedCall> launches;  // sorted by key, each key once with its launching call (or kNoCall)
  auto keep_first_of_each_key = [&] {
    launches.erase(std::unique(launches.begin(), launches.end(),
                               [](const KeyedCall& a, const KeyedCall& b) { return a.key == b.key; }),
                   launches.end());
  };
  auto find_key = [&](uint64_t key) {
    auto it = std::lower_bound(launches.begin(), launches.end(), key, [](const KeyedCall& k, uint64_t v) { return k.key < v; });
    return it != launches.end() && it->key == key ? it : launches.end();
  };
  if (gap_keys > 0 && call_keys > 0) {
    if (call_keys <= gap_keys) {
      launches.reserve(call_keys);
      for (std::size_t c = 0; c < trace.api_calls.size(); ++c)
        if (const ApiCall& a = trace.api_calls[c]; candidate(a))
          launches.push_back({launch_key(a.process, a.correlation_id), static_cast<uint32_t>(c)});
      std::sort(launches.begin(), launches.end(), [&](const KeyedCall& a, const KeyedCall& b) {
        if (a.key != b.key) return a.key < b.key;
        const TimeNs sa = trace.api_calls[a.call].start, sb = trace.api_calls[b.call].start;
        return sa != sb ? sa < sb : a.call < b.call;
      });
      keep_first_of_each_key();
    } else {
      launches.reserve(gap_keys);
      for_each_step([&](std::size_t i, const NodeInfo&, const NodeInfo& next, TimeNs gap) {
        if (keyed_gap(i, next, gap)) launches.push_back({launch_key(next.process, next.correlation), kNoCall});
      });
      std::sort(launches.begin(), launches.end(), [](const KeyedCall& a, const KeyedCall& b) { return a.key < b.key; });
      keep_first_of_each_key();
      for (std::size_t c = 0; c < trace.api_calls.size(); ++c) {
        const ApiCall& a = trace.api_calls[c];
        if (!candidate(a)) continue;
        auto it = find_key(launch_key(a.process, a.correlation_id));
        if (it == launches.end()) continue;
        if (it->call == kNoCall || a.start < trace.api_calls[it->call].start) it->call = static_cast<uint32_t>(c);
      }
    }
  }
  auto launch_call_of = [&](Index process, int64_t correlation) {
    auto it = find_key(launch_key(process, correlation));
    return it != launches.end() ? it->call : kNoCall;
  };
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

  TimeNs first_start = 0, last_end = 0;
  for_each_step([&](std::size_t i, const NodeInfo& prev, const NodeInfo& next, TimeNs gap) {
    if (i == 0) {
      first_start = next.start, last_end = next.end;
      return;
    }
    last_end = std::max(last_end, next.end);
    if (gap == 0) return;
    ++out.gaps;
    out.idle_ns += static_cast<double>(gap);
    const uint32_t call = next.correlation != 0 ? launch_call_of(next.process, next.correlation) : kNoCall;
    if (call == kNoCall) {
      out.unattributed_ns += static_cast<double>(gap);
      return;
    }
    const TimeNs launch_start = trace.api_calls[call].start;
    const TimeNs host_part = std::clamp<TimeNs>(launch_start - prev.end, 0, gap);
    out.launch_ns += static_cast<double>(gap - host_part);
    if (host_part == 0) return;
    if (synchronised(next.process, prev.end, launch_start))
      out.sync_ns += static_cast<double>(host_part);
    else
      out.host_ns += static_cast<double>(host_part);
  });
  // The medians of the gaps (every step's, zero ones too) and of the nodes' durations, exact, over the path read
  // again (analysis/group_medians.hpp) rather than from copies of both.
  GroupMedians medians(2);
  medians.compute([&](auto add) {
    for_each_step([&](std::size_t i, const NodeInfo&, const NodeInfo& next, TimeNs gap) {
      if (i > 0) add(0, gap);
      add(1, next.end - next.start);
    });
  });
  out.median_gap_ns = medians.count(0) ? medians.median(0) : 0;
  out.median_node_ns = medians.median(1);
  out.window_ns = static_cast<double>(last_end - first_start);
  out.launches_per_second = out.window_ns > 0 ? static_cast<double>(cp.path.size()) / (out.window_ns / 1e9) : 0;
  return out;
}

}  // namespace rpl::analysis
