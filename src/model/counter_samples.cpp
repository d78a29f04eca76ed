#include "model/counter_samples.hpp"

#include <algorithm>
#include <numeric>

namespace rpl {

std::vector<Index> processes_in_start_order(const Trace& trace) {
  std::vector<Index> order(trace.processes.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::sort(order.begin(), order.end(), [&](Index a, Index b) {
    const Process &x = trace.processes[a], &y = trace.processes[b];
    return x.start != y.start ? x.start < y.start : x.pid < y.pid;
  });
  return order;
}

}  // namespace rpl
