#include "analysis/kernel_slack.hpp"

#include <algorithm>
#include <utility>

namespace rpl::analysis {

std::vector<KernelSlack> summarize_kernel_slack(const Trace& trace, const std::function<Index(std::size_t)>& dispatch_of,
                                                std::span<const TimeNs> slack, std::span<const uint8_t> on_path) {
  if (slack.size() != on_path.size()) return {};
  // Group by display-name string id: count, then place each dispatch's slack in its group's range.
  constexpr uint32_t kNoGroup = UINT32_MAX;
  std::vector<uint32_t> group_of_name(trace.strings.size(), kNoGroup);
  std::vector<Index> names;
  std::vector<std::size_t> offset, on_path_count;
  auto name_of = [&](std::size_t i) -> Index {
    Index d = dispatch_of(i);
    if (d >= trace.dispatches.size()) return kNoIndex;
    Index s = trace.dispatches.symbol_of(d);
    return s < trace.symbols.size() ? trace.symbols[s].display_name : kNoIndex;
  };
  for (std::size_t i = 0; i < slack.size(); ++i) {
    Index name = name_of(i);
    if (name == kNoIndex) continue;
    uint32_t& g = group_of_name[name];
    if (g == kNoGroup) {
      g = static_cast<uint32_t>(names.size());
      names.push_back(name);
      offset.push_back(0);
      on_path_count.push_back(0);
    }
    ++offset[g];
    on_path_count[g] += on_path[i] != 0;
  }
  std::size_t total = 0;
  for (std::size_t& o : offset) total += std::exchange(o, total);
  std::vector<TimeNs> grouped(total);
  std::vector<std::size_t> fill = offset;
  for (std::size_t i = 0; i < slack.size(); ++i)
    if (Index name = name_of(i); name != kNoIndex) grouped[fill[group_of_name[name]]++] = slack[i];

  std::vector<KernelSlack> out;
  out.reserve(names.size());
  for (std::size_t g = 0; g < names.size(); ++g) {
    auto first = grouped.begin() + static_cast<std::ptrdiff_t>(offset[g]);
    auto last = grouped.begin() + static_cast<std::ptrdiff_t>(fill[g]);
    const std::size_t n = static_cast<std::size_t>(last - first), m = n / 2;
    std::nth_element(first, first + static_cast<std::ptrdiff_t>(m), last);
    const TimeNs upper = first[static_cast<std::ptrdiff_t>(m)];
    // Below the median position every value is <= upper: the lower middle is their maximum.
    const double median = n % 2 ? static_cast<double>(upper)
                                : (static_cast<double>(*std::max_element(first, first + static_cast<std::ptrdiff_t>(m))) +
                                   static_cast<double>(upper)) / 2.0;
    const TimeNs minimum = m > 0 ? std::min(upper, *std::min_element(first, first + static_cast<std::ptrdiff_t>(m))) : upper;
    out.push_back({trace.strings.at(names[g]), n, on_path_count[g], minimum, median});
  }
  std::sort(out.begin(), out.end(), [](const KernelSlack& a, const KernelSlack& b) {
    if (a.median_slack_ns != b.median_slack_ns) return a.median_slack_ns < b.median_slack_ns;
    return a.name < b.name;
  });
  return out;
}

std::vector<KernelSlack> kernel_slack(const Trace& trace, const CriticalPathResult& dag) {
  if (dag.slack.size() != dag.nodes.size() || dag.on_path.size() != dag.nodes.size()) return {};
  return summarize_kernel_slack(
      trace,
      [&](std::size_t i) { return dag.nodes[i].kind == NodeKind::Dispatch ? dag.nodes[i].index : kNoIndex; },
      dag.slack, dag.on_path);
}

}  // namespace rpl::analysis
