#pragma once
// Why the GPU waits: each idle gap on the critical path (between the end of one node and the start of the
// next) is split by what the host was doing, from the API calls the trace records (after HTA's idle-time
// breakdown: host wait, kernel wait, other):
//   launch latency     the part of the gap after the next node's launch call began (the host had issued
//                      the work, or was issuing it: launch call duration plus driver-to-GPU latency);
//   host synchronisation  the part before that launch call began, when a host synchronisation call
//                      (stream/event/device synchronise) overlaps it: the host drained the GPU's queue and
//                      everything it did afterwards is exposed;
//   host work          the part before the launch call began, with no synchronisation: the host was busy
//                      elsewhere (framework, Python, CPU work) and launched too late;
//   unattributed       gaps whose next node has no recorded launch call.
// The four parts of each gap add up to the gap.
#include <cstddef>
#include <vector>

#include "analysis/critical_path.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct IdleBreakdown {
  std::size_t gaps = 0;         // gaps > 0 between consecutive nodes of the path
  double idle_ns = 0;           // their sum
  double launch_ns = 0;
  double sync_ns = 0;
  double host_ns = 0;
  double unattributed_ns = 0;
  std::size_t path_nodes = 0;
  double median_gap_ns = 0;     // per node of the path after the first (gaps of 0 included)
  double median_node_ns = 0;    // duration of the path's nodes
  double window_ns = 0;         // last end - first start of the path
  double launches_per_second = 0;  // path nodes / window
};

IdleBreakdown attribute_idle(const Trace& trace, const CriticalPathResult& path);

}  // namespace rpl::analysis
