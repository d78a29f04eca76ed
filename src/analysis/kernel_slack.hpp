#pragma once
// Per-kernel slack: how far each kernel's dispatches could start later without delaying the end of the run
// (the critical-path DAG's latest start - earliest start), as the minimum and the median over the kernel's
// dispatches. A minimum of 0 means some dispatch of the kernel is on the critical path; a large median says
// most of its dispatches are off it (speeding them up would not shorten the run). Pure.
//
// Exact at any size: the slacks are grouped by kernel in one buffer (8 bytes per dispatch, transient) and the
// median found by selection, not by sorting.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// One entry per kernel name with at least one dispatch node, by median slack ascending (the kernels with the
// least room first), then name. `dispatch_of(i)` is node i's index into Trace::dispatches, or kNoIndex for a
// copy; `slack` and `on_path` hold one entry per node. Empty when the sizes disagree.
std::vector<KernelSlack> summarize_kernel_slack(const Trace& trace, const std::function<Index(std::size_t)>& dispatch_of,
                                                std::span<const TimeNs> slack, std::span<const uint8_t> on_path);

// The same over a result's per-node arrays (CriticalPathResult::nodes, slack, on_path). Empty when the DAG has
// no per-node slack.
std::vector<KernelSlack> kernel_slack(const Trace& trace, const CriticalPathResult& dag);

}  // namespace rpl::analysis
