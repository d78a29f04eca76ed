#pragma once
// Per-kernel slack: how far each kernel's dispatches could start later without delaying the end of the run
// (the critical-path DAG's latest start - earliest start), as the minimum and the median over the kernel's
// dispatches. A minimum of 0 means some dispatch of the kernel is on the critical path; a large median says
// most of its dispatches are off it (speeding them up would not shorten the run). Pure.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct KernelSlack {
  std::string name;                  // display name
  std::size_t dispatches = 0;        // dispatches of the kernel in the DAG
  std::size_t on_critical_path = 0;  // of them, on the critical path
  TimeNs min_slack_ns = 0;
  double median_slack_ns = 0;        // the mean of the two middle values for an even count
};

// One entry per kernel name with at least one dispatch node, by median slack ascending (the kernels with the
// least room first), then name. Empty when the DAG has no per-node slack.
std::vector<KernelSlack> kernel_slack(const Trace& trace, const CriticalPathResult& dag);

}  // namespace rpl::analysis
