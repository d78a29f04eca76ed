#pragma once
// Per-kernel slack: how far each kernel's dispatches could start later without delaying the end of the run
// (the critical-path DAG's latest start - earliest start), as the minimum and the median over the kernel's
// dispatches. A minimum of 0 means some dispatch of the kernel is on the critical path; a large median says
// most of its dispatches are off it (speeding them up would not shorten the run). Pure.
//
// Exact at any size, without holding the slacks: the median is selected over the values read again in a few
// passes (analysis/group_medians.hpp; issue 32, 8 bytes per dispatch before).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "analysis/group_medians.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// The kernel groups of the summary (one per display-name string id, in symbol order) and their on-path counts,
// for callers that produce the slacks themselves: for each dispatch, medians.add(of_dispatch(d), slack) and
// count_on_path once, then medians.select over the same values again, then summary(medians).
class KernelSlackGroups {
 public:
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  explicit KernelSlackGroups(const Trace& trace);
  std::size_t size() const { return names_.size(); }
  // The group of dispatch `d` (an index into Trace::dispatches), kNoGroup for kNoIndex or a symbol without one.
  uint32_t of_dispatch(Index d) const {
    if (d >= trace_.dispatches.size()) return kNoGroup;
    const Index s = trace_.dispatches.symbol_of(d);
    return s < group_of_symbol_.size() ? group_of_symbol_[s] : kNoGroup;
  }
  void count_on_path(uint32_t g, bool on_path) { on_path_[g] += on_path ? 1 : 0; }
  std::vector<KernelSlack> summary(const GroupMedians& medians) const;

 private:
  const Trace& trace_;
  std::vector<uint32_t> group_of_name_, group_of_symbol_;
  std::vector<Index> names_;
  std::vector<std::size_t> on_path_;
};

// One entry per kernel name with at least one dispatch node, by median slack ascending (the kernels with the
// least room first), then name. `dispatch_of(i)` is node i's index into Trace::dispatches, or kNoIndex for a
// copy; `slack` and `on_path` hold one entry per node. Empty when the sizes disagree.
std::vector<KernelSlack> summarize_kernel_slack(const Trace& trace, const std::function<Index(std::size_t)>& dispatch_of,
                                                std::span<const TimeNs> slack, std::span<const uint8_t> on_path);

// The same over a result's per-node arrays (CriticalPathResult::nodes, slack, on_path). Empty when the DAG has
// no per-node slack.
std::vector<KernelSlack> kernel_slack(const Trace& trace, const CriticalPathResult& dag);

}  // namespace rpl::analysis
