#include "analysis/kernel_slack.hpp"

#include <algorithm>
#include <unordered_map>

namespace rpl::analysis {

std::vector<KernelSlack> kernel_slack(const Trace& trace, const CriticalPathResult& dag) {
  if (dag.slack.size() != dag.nodes.size()) return {};
  struct Acc {
    std::vector<TimeNs> slack;
    std::size_t on_path = 0;
  };
  std::unordered_map<Index, Acc> by_name;  // display-name string id -> slacks
  for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
    const NodeRef& n = dag.nodes[i];
    if (n.kind != NodeKind::Dispatch || n.index >= trace.dispatches.size()) continue;
    const Dispatch& d = trace.dispatches[n.index];
    if (d.symbol >= trace.symbols.size()) continue;
    Acc& a = by_name[trace.symbols[d.symbol].display_name];
    a.slack.push_back(dag.slack[i]);
    a.on_path += i < dag.on_path.size() && dag.on_path[i];
  }
  std::vector<KernelSlack> out;
  out.reserve(by_name.size());
  for (auto& [name, a] : by_name) {
    auto& s = a.slack;
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    const double median = s.size() % 2 ? static_cast<double>(s[m]) : (static_cast<double>(s[m - 1]) + s[m]) / 2.0;
    out.push_back({std::string(trace.strings.at(name)), s.size(), a.on_path, s.front(), median});
  }
  std::sort(out.begin(), out.end(), [](const KernelSlack& a, const KernelSlack& b) {
    if (a.median_slack_ns != b.median_slack_ns) return a.median_slack_ns < b.median_slack_ns;
    return a.name < b.name;
  });
  return out;
}

}  // namespace rpl::analysis
