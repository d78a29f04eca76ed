#include "analysis/kernel_slack.hpp"

namespace rpl::analysis {

KernelSlackGroups::KernelSlackGroups(const Trace& trace) : trace_(trace), group_of_name_(trace.strings.size(), kNoGroup) {
  group_of_symbol_.assign(trace.symbols.size(), kNoGroup);
  for (std::size_t s = 0; s < trace.symbols.size(); ++s) {
    const Index name = trace.symbols[s].display_name;
    if (name >= group_of_name_.size()) continue;
    uint32_t& g = group_of_name_[name];
    if (g == kNoGroup) {
      g = static_cast<uint32_t>(names_.size());
      names_.push_back(name);
    }
    group_of_symbol_[s] = g;
  }
  on_path_.assign(names_.size(), 0);
}

std::vector<KernelSlack> KernelSlackGroups::summary(const GroupMedians& medians) const {
  std::vector<KernelSlack> out;
  for (std::size_t g = 0; g < names_.size(); ++g) {
    if (medians.count(g) == 0) continue;
    out.push_back({trace_.strings.at(names_[g]), medians.count(g), on_path_[g], medians.min(g), medians.median(g)});
  }
  std::sort(out.begin(), out.end(), [](const KernelSlack& a, const KernelSlack& b) {
    if (a.median_slack_ns != b.median_slack_ns) return a.median_slack_ns < b.median_slack_ns;
    return a.name < b.name;
  });
  return out;
}

std::vector<KernelSlack> summarize_kernel_slack(const Trace& trace, const std::function<Index(std::size_t)>& dispatch_of,
                                                std::span<const TimeNs> slack, std::span<const uint8_t> on_path) {
  if (slack.size() != on_path.size()) return {};
  KernelSlackGroups groups(trace);
  GroupMedians medians(groups.size());
  for (std::size_t i = 0; i < slack.size(); ++i)
    if (const uint32_t g = groups.of_dispatch(dispatch_of(i)); g != KernelSlackGroups::kNoGroup) {
      medians.add(g, slack[i]);
      groups.count_on_path(g, on_path[i] != 0);
    }
  medians.select([&](auto add) {
    for (std::size_t i = 0; i < slack.size(); ++i)
      if (const uint32_t g = groups.of_dispatch(dispatch_of(i)); g != KernelSlackGroups::kNoGroup) add(g, slack[i]);
  });
  return groups.summary(medians);
}

std::vector<KernelSlack> kernel_slack(const Trace& trace, const CriticalPathResult& dag) {
  if (dag.slack.size() != dag.nodes.size() || dag.on_path.size() != dag.nodes.size()) return {};
  return summarize_kernel_slack(
      trace,
      [&](std::size_t i) { return dag.nodes[i].kind == NodeKind::Dispatch ? dag.nodes[i].index : kNoIndex; },
      dag.slack, dag.on_path);
}

}  // namespace rpl::analysis
