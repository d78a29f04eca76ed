#include "app/slack_db.hpp"

#include "store/slack_table.hpp"
#include "support/errors.hpp"

namespace rpl::app {

void write_slack_db(const std::string& path, const AnalyzeResults& r) {
  const Trace& t = r.trace;
  const auto& dag = r.dag;
  if (dag.nodes.size() != dag.node_count || dag.slack.size() != dag.nodes.size())
    throw Error(ExitCode::Internal, "--slack-db: the analysis kept no per-node rows");
  store::SlackTable table;
  table.inputs = r.inputs;
  // Names by first appearance, as dag.json's names: kernels by display name, copies by kind.
  std::vector<int64_t> name_of_string(t.strings.size(), -1);
  auto string_of = [&](const analysis::NodeRef& n) {
    return n.kind == analysis::NodeKind::Dispatch ? t.symbols[t.dispatches[n.index].symbol].display_name
                                                  : t.copies[n.index].kind;
  };
  for (const auto& n : dag.nodes) {
    int64_t& id = name_of_string[string_of(n)];
    if (id < 0) {
      id = static_cast<int64_t>(table.names.size());
      table.names.push_back(t.strings.at(string_of(n)));
    }
  }
  auto stream_id = [&](Index s) { return s == kNoIndex ? int64_t{-1} : t.streams[s].rocpd_id; };
  table.rows = dag.nodes.size();
  table.row = [&](std::size_t i) {
    const analysis::NodeRef& n = dag.nodes[i];
    store::NodeSlackRow row;
    if (n.kind == analysis::NodeKind::Dispatch) {
      const Dispatch& d = t.dispatches[n.index];
      row = {0, 0, d.process, d.dispatch_id, stream_id(d.stream), d.start, d.end - d.start};
    } else {
      const MemoryCopy& c = t.copies[n.index];
      row = {1, 0, c.process, c.copy_id, stream_id(c.stream), c.start, c.end - c.start};
    }
    row.name = name_of_string[string_of(n)];
    row.earliest_start_ns = dag.earliest_start[i];
    row.slack_ns = dag.slack[i];
    row.on_critical_path = dag.on_path[i];
    return row;
  };
  store::write_slack_table(path, table);
}

}  // namespace rpl::app
