// dag.json: the critical path, the per-kernel slack summary and the what-if predictions. The path is written
// as rows of numbers with names by index, streamed, so a long path does not need a JSON DOM. Per-node rows
// (earliest start and slack of every dispatch) are not in it: --slack-db writes them to a SQLite table
// (app/slack_table.hpp), since at 100M dispatches they would be about 6 GB of JSON.
#include "report/analyze_report.hpp"
#include "report/idle_report.hpp"

namespace rpl::report {
namespace {

// Names referenced by rows: kernels by display name, copies by kind.
class NameIndex {
 public:
  explicit NameIndex(const Trace& t) : trace_(t), by_string_(t.strings.size(), -1) {}
  int64_t of(const analysis::NodeRef& n) {
    Index s = n.kind == analysis::NodeKind::Dispatch
                  ? trace_.symbols[trace_.dispatches[n.index].symbol].display_name
                  : trace_.copies[n.index].kind;
    if (by_string_[s] < 0) {
      by_string_[s] = static_cast<int64_t>(names_.size());
      names_.push_back(s);
    }
    return by_string_[s];
  }
  const std::vector<Index>& names() const { return names_; }

 private:
  const Trace& trace_;
  std::vector<int64_t> by_string_;
  std::vector<Index> names_;
};

struct NodeFacts {
  int64_t kind, process, id, stream;
  TimeNs start, end;
};

NodeFacts facts(const Trace& t, const analysis::NodeRef& n) {
  auto stream_id = [&](Index s) { return s == kNoIndex ? int64_t{-1} : t.streams[s].rocpd_id; };
  if (n.kind == analysis::NodeKind::Dispatch) {
    const Dispatch& d = t.dispatches[n.index];
    return {0, d.process, d.dispatch_id, stream_id(d.stream), d.start, d.end};
  }
  const MemoryCopy& c = t.copies[n.index];
  return {1, c.process, c.copy_id, stream_id(c.stream), c.start, c.end};
}

}  // namespace

nlohmann::json what_if_json(const analysis::WhatIfResult& w) {
  return {{"pattern", w.spec.pattern},           {"factor", w.spec.factor},
          {"matched_dispatches", w.matched_dispatches}, {"matched_kernels", w.matched_kernels},
          {"baseline_ns", w.baseline_ns},        {"predicted_ns", w.predicted_ns},
          {"delta_ns", w.delta_ns},              {"speedup", w.speedup},
          {"naive_delta_ns", w.naive_delta_ns}};
}

void write_dag_document(JsonStream& out, const app::AnalyzeResults& r) {
  const Trace& t = r.trace;
  const auto& dag = r.dag;
  NameIndex names(t);

  out.begin_object();
  out.key("schema_version");
  out.value(std::string_view(kDagSchemaVersion));
  out.key("ordering");
  out.value(std::string_view(dag.ordering));
  out.key("inference_enabled");
  out.value(r.inferred_edges);
  out.key("node_count");
  out.value(static_cast<uint64_t>(dag.node_count));
  out.key("edge_counts");
  out.value(nlohmann::json{{"stream_order", dag.edges.stream_order},
                           {"event_wait", dag.edges.event_wait},
                           {"host_sync", dag.edges.host_sync},
                           {"barrier", dag.edges.barrier},
                           {"inferred", dag.edges.inferred}});
  // Join nodes by reason (zero-duration nodes joining several streams, e.g. a device synchronisation).
  nlohmann::json joins = nlohmann::json::object();
  for (std::size_t k = 0; k < analysis::kJoinReasonCount; ++k)
    joins[analysis::to_string(static_cast<analysis::JoinReason>(k))] = dag.joins.by_reason[k];
  out.key("join_nodes");
  out.value(joins);
  out.key("trace_start_ns");
  out.value(static_cast<int64_t>(dag.trace_start_ns));
  for (auto [k, v] : {std::pair{"wall_span_ns", dag.wall_span_ns},
                      {"modeled_span_ns", dag.modeled_span_ns},
                      {"critical_path_ns", dag.critical_path_ns},
                      {"critical_path_busy_ns", dag.critical_path_busy_ns},
                      {"critical_path_idle_ns", dag.critical_path_idle_ns},
                      {"serial_ns", dag.serial_ns},
                      {"parallelism", dag.parallelism}}) {
    out.key(k);
    out.value(v);
  }

  out.key("window");
  out.value(window_json(r.window));
  out.key("idle_breakdown");
  out.value(idle_json(r.idle));

  nlohmann::json contributions = nlohmann::json::array();
  for (const auto& c : dag.contributions)
    contributions.push_back({{"name", c.name},
                             {"dispatches_on_path", c.dispatches_on_path},
                             {"time_on_path_ns", c.time_on_path_ns},
                             {"fraction_of_path", c.fraction_of_path}});
  out.key("contributions");
  out.value(contributions);

  nlohmann::json what_if = nlohmann::json::array();
  for (const auto& w : r.what_if) what_if.push_back(what_if_json(w));
  out.key("what_if");
  out.value(what_if);

  // Per kernel: the minimum and median slack of its dispatches (analysis/kernel_slack.hpp).
  nlohmann::json slack = nlohmann::json::array();
  for (const auto& k : dag.kernel_slack)
    slack.push_back({{"name", k.name},
                     {"dispatches", k.dispatches},
                     {"on_critical_path", k.on_critical_path},
                     {"min_slack_ns", k.min_slack_ns},
                     {"median_slack_ns", k.median_slack_ns}});
  out.key("kernel_slack");
  out.value(slack);

  out.key("kinds");
  out.value(nlohmann::json{"dispatch", "copy"});

  // The path, in time order.
  out.key("critical_path");
  out.begin_object();
  out.key("columns");
  out.value(nlohmann::json{"kind", "name", "process", "id", "stream", "start_ns", "end_ns"});
  out.key("rows");
  out.begin_array();
  for (const auto& n : dag.path) {
    NodeFacts f = facts(t, n);
    out.row(f.kind, names.of(n), f.process, f.id, f.stream, f.start, f.end);
  }
  out.end_array();
  out.end_object();

  // Names last: rows above refer to them by index.
  out.key("names");
  out.begin_array();
  for (Index s : names.names()) out.value(std::string_view(t.strings.at(s)));
  out.end_array();
  out.end_object();
}

}  // namespace rpl::report
