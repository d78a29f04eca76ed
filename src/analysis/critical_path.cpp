// The critical-path analysis: schedule the DAG with measured durations and report the path, slack and
// per-kernel contributions.
#include "support/checked_math.hpp"
#include "analysis/critical_path.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <unordered_map>

#include "analysis/dag.hpp"
#include "analysis/dag_edges.hpp"
#include "analysis/kernel_slack.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/resident_memory.hpp"
#include "support/spilled_column.hpp"

namespace rpl::analysis {

const char* to_string(EdgeKind k) {
  switch (k) {
    case EdgeKind::StreamOrder: return "stream_order";
    case EdgeKind::EventWait: return "event_wait";
    case EdgeKind::HostSync: return "host_sync";
    case EdgeKind::Barrier: return "barrier";
    case EdgeKind::Inferred: return "inferred";
  }
  return "unknown";
}

const char* to_string(JoinReason r) {
  switch (r) {
    case JoinReason::HostSync: return "host_sync";
    case JoinReason::GpuBarrier: return "gpu_barrier";
  }
  return "unknown";
}

namespace {

constexpr const char* kUnknownKernel = "<unknown kernel>";
constexpr const char* kUnnamedCopy = "MEMORY_COPY";

// Time on the path per kernel display name; copies per copy kind. Accumulates by symbol / kind index
// first, so that names are looked up once per symbol, not once per path node.
std::vector<SymbolContribution> contributions(const Trace& trace, const dag::WorkTimes& g,
                                              const std::vector<dag::NodeId>& path, double path_ns) {
  struct Tally {
    std::size_t count = 0;
    TimeNs time = 0;
  };
  std::vector<Tally> by_symbol(trace.symbols.size() + 1);  // last slot: unknown symbol
  std::vector<Tally> by_copy_kind(trace.strings.size() + 1);
  for (dag::NodeId v : path) {
    const NodeRef r = v < g.dispatch_count ? NodeRef{NodeKind::Dispatch, static_cast<Index>(v)}
                                           : NodeRef{NodeKind::Copy, static_cast<Index>(v - g.dispatch_count)};
    Tally* t;
    if (r.kind == NodeKind::Dispatch) {
      Index s = trace.dispatches.symbol_of(r.index);
      t = &by_symbol[s < trace.symbols.size() ? s : trace.symbols.size()];
    } else {
      Index k = trace.copies[r.index].kind;
      t = &by_copy_kind[k < trace.strings.size() ? k : trace.strings.size()];
    }
    ++t->count;
    t->time += g.duration(v);
  }
  std::vector<SymbolContribution> out;
  std::unordered_map<std::string, std::size_t> slot_of_name;
  auto add = [&](const std::string& name, const Tally& t) {
    auto [it, inserted] = slot_of_name.try_emplace(name, out.size());
    if (inserted) out.push_back(SymbolContribution{name});
    SymbolContribution& c = out[it->second];
    c.dispatches_on_path += t.count;
    c.time_on_path_ns += static_cast<double>(t.time);
  };
  for (std::size_t s = 0; s < by_symbol.size(); ++s) {
    if (by_symbol[s].count == 0) continue;
    add(s < trace.symbols.size() ? trace.strings.at(trace.symbols[s].display_name) : kUnknownKernel, by_symbol[s]);
  }
  for (std::size_t k = 0; k < by_copy_kind.size(); ++k) {
    if (by_copy_kind[k].count == 0) continue;
    const bool named = k < trace.strings.size() && !trace.strings.at(static_cast<Index>(k)).empty();
    add(named ? trace.strings.at(static_cast<Index>(k)) : kUnnamedCopy, by_copy_kind[k]);
  }
  for (SymbolContribution& c : out) c.fraction_of_path = path_ns > 0 ? c.time_on_path_ns / path_ns : 0;
  std::sort(out.begin(), out.end(), [](const SymbolContribution& a, const SymbolContribution& b) {
    return a.time_on_path_ns != b.time_on_path_ns ? a.time_on_path_ns > b.time_on_path_ns : a.name < b.name;
  });
  return out;
}

// Debug: the resident memory after a step of the schedule (where the analysis's peak is, issue 32).
void log_schedule_memory(const char* step) {
  if (log::level() < log::Level::Debug) return;
  const ResidentMemory m = resident_memory();
  log::debug("critical path: {}, RSS {} MB (peak so far {} MB)", step, m.now_kb / 1024, m.peak_kb / 1024);
}

// The figures of the path: its span, busy and idle time, parallelism, per-kernel contributions.
void describe_path(const Trace& trace, const dag::WorkTimes& work, std::size_t work_count, const std::vector<dag::NodeId>& path,
                   TimeNs first_finish, TimeNs last_finish, CriticalPathResult& result) {
  const dag::NodeId first = path.front();
  const TimeNs path_ns = last_finish - (first_finish - work.duration(first));
  TimeNs busy = 0;
  // Saturating: durations are checked to be below 2^62 each, but their sum over many nodes is not.
  for (dag::NodeId v : path) busy = saturating_add(busy, work.duration(v));
  TimeNs serial = 0;
  for (dag::NodeId v = 0; v < work_count; ++v) serial = saturating_add(serial, work.duration(v));  // joins are 0 long
  result.critical_path_ns = static_cast<double>(path_ns);
  result.critical_path_busy_ns = static_cast<double>(busy);
  result.critical_path_idle_ns = std::max(0.0, static_cast<double>(path_ns) - static_cast<double>(busy));
  result.serial_ns = static_cast<double>(serial);
  result.parallelism = path_ns > 0 ? result.serial_ns / result.critical_path_ns : 0;
  result.inferred_links_on_path =
      static_cast<std::size_t>(std::count(result.path_links.begin(), result.path_links.end(), EdgeKind::Inferred));
  result.path.reserve(path.size());
  for (dag::NodeId v : path)
    result.path.push_back(v < work.dispatch_count ? NodeRef{NodeKind::Dispatch, static_cast<Index>(v)}
                                                  : NodeRef{NodeKind::Copy, static_cast<Index>(v - work.dispatch_count)});
  result.contributions = contributions(trace, work, path, result.critical_path_ns);
}

// The CSR form (dag.hpp): per-node arrays, any topological order. The fallback of the streamed schedule.
void schedule_with_arrays(const Trace& trace, dag::EdgeSet&& edges, const DagOptions& options, CriticalPathResult& result);

}  // namespace

CriticalPathResult analyze_critical_path(const Trace& trace, const DagOptions& options) {
  CriticalPathResult result;
  // Issue 32: the DAG reads the measured times from the trace and computes the gaps where the passes need them.
  dag::EdgeSet edges = dag::build_edges(trace, options);
  const std::size_t n = edges.nodes->size();  // the results list work nodes, not joins
  result.node_count = n;
  for (JoinReason r : edges.extra.join_reasons) ++result.joins.by_reason[static_cast<std::size_t>(r)];
  result.ordering = edges.ordering;
  result.inferred_edges_enabled = edges.inferred_enabled;
  if (n == 0) return result;
  result.trace_start_ns = edges.trace_start;
  result.wall_span_ns = static_cast<double>(edges.trace_end - edges.trace_start);
  // Issue 32: in submission order, with state per lane, edge and join (no per-node arrays), when that order is
  // a topological order of the DAG; else the CSR arrays.
  std::optional<dag::StreamedSchedule> s;
  if (options.streamed) s = dag::streamed_schedule(edges, options.node_rows);
  if (!s) {
    log::debug("critical path: submission order is not a topological order of the DAG; per-node arrays");
    schedule_with_arrays(trace, std::move(edges), options, result);
    return result;
  }
  result.streamed = true;
  result.edges = s->counts;
  result.modeled_span_ns = static_cast<double>(s->makespan);
  result.path_links = std::move(s->links);
  describe_path(trace, edges.nodes->times, n, s->path, s->first_finish, s->makespan, result);
  result.kernel_slack = std::move(s->kernel_slack);
  if (!options.node_rows) return result;
  reserve_with_huge_pages(result.nodes, n);
  result.nodes.resize(n);
  const std::size_t dispatches = edges.nodes->dispatch_count;
  for (dag::NodeId v = 0; v < n; ++v)  // as Dag::ref
    result.nodes[v] = v < dispatches ? NodeRef{NodeKind::Dispatch, static_cast<Index>(v)}
                                     : NodeRef{NodeKind::Copy, static_cast<Index>(v - dispatches)};
  result.earliest_start = std::move(s->earliest_start);
  result.slack = std::move(s->slack);
  result.on_path = std::move(s->on_path);
  return result;
}

namespace {

void schedule_with_arrays(const Trace& trace, dag::EdgeSet&& edges, const DagOptions& options, CriticalPathResult& result) {
  dag::Dag g = dag::build_dag(std::move(edges));
  const std::size_t all = g.size(), n = g.work_count;
  result.edges = g.counts;
  std::vector<TimeNs> finish, latest;  // become result.earliest_start and result.slack
  reserve_with_huge_pages(finish, all);
  finish.resize(all);
  const TimeNs makespan = dag::forward_pass_measured(g, finish);
  result.modeled_span_ns = static_cast<double>(makespan);
  const std::vector<dag::NodeId> path = dag::walk_critical_path(g, finish, result.path_links);
  log_schedule_memory("forward pass and path");

  describe_path(trace, g.work, n, path, finish[path.front()], finish[path.back()], result);

  // From here the work nodes' earliest finishes are read once more, in order, for their slack: without node rows
  // they wait in a temporary file while the backward pass runs (issue 32: the pass's buffer and this one were
  // the run's peak together, 16 bytes per node). The backward pass reads the predecessors, not their kinds nor
  // the lanes (the walk's): those are released before its buffer is allocated too.
  finish.resize(n);
  std::optional<SpilledColumn<TimeNs>> spilled_finish;
  if (!options.node_rows) spilled_finish.emplace(std::move(finish));
  LargeVector<EdgeKind>().swap(g.pred_kinds);
  g.lane.clear();
  reserve_with_huge_pages(latest, all);
  latest.resize(all);
  dag::backward_pass(g, makespan, latest);
  log_schedule_memory("backward pass");

  // Slack per node: latest start - earliest start, in place in the backward-pass buffer (the pass buffers
  // become the per-node arrays: at 10M nodes, fresh pages cost real time).
  latest.resize(n);
  auto slack_of = [&](std::size_t begin, std::span<const TimeNs> earliest_finish) {
    for (std::size_t k = 0; k < earliest_finish.size(); ++k)
      latest[begin + k] = std::max<TimeNs>(0, latest[begin + k] - earliest_finish[k]);
  };
  if (!spilled_finish) slack_of(0, finish);
  else if (!spilled_finish->for_each_chunk(slack_of))
    throw Error(ExitCode::Internal, "critical path: the temporary file of earliest finishes could not be read back");
  spilled_finish.reset();
  std::vector<uint8_t> on_path(n, 0);
  for (dag::NodeId v : path) {
    on_path[v] = 1;
    latest[v] = 0;  // holds by construction (binding predecessors); stated for clarity
  }
  if (options.node_rows)
    for (dag::NodeId v = 0; v < n; ++v) finish[v] = g.trace_start + finish[v] - g.duration(v);  // earliest start
  // The DAG is not needed below: released before the per-kernel summary allocates (the run's peak, issue 32).
  const std::size_t dispatches = g.dispatch_count;
  g = dag::Dag{};
  result.kernel_slack = summarize_kernel_slack(
      trace, [dispatches](std::size_t v) { return v < dispatches ? static_cast<Index>(v) : kNoIndex; }, latest, on_path);
  log_schedule_memory("per-kernel slack");
  if (!options.node_rows) return;
  reserve_with_huge_pages(result.nodes, n);
  result.nodes.resize(n);
  for (dag::NodeId v = 0; v < n; ++v)  // as Dag::ref
    result.nodes[v] = v < dispatches ? NodeRef{NodeKind::Dispatch, static_cast<Index>(v)}
                                     : NodeRef{NodeKind::Copy, static_cast<Index>(v - dispatches)};
  result.earliest_start = std::move(finish);
  result.slack = std::move(latest);
  result.on_path = std::move(on_path);
}

}  // namespace

}  // namespace rpl::analysis
