#include "analysis/scratch_memory.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace rpl::analysis {

ScratchSummary summarize_scratch(const std::vector<ScratchOperation>& operations, const Trace& trace) {
  ScratchSummary out;
  out.operations = operations.size();
  std::map<std::tuple<int64_t, int64_t, std::string>, ScratchAgentSummary> by_agent;
  for (const ScratchOperation& op : operations) {
    ScratchAgentSummary& s = by_agent[{op.pid, op.agent_index, op.agent}];
    s.pid = op.pid;
    s.agent = op.agent;
    s.agent_index = op.agent_index;
    const TimeNs d = op.end - op.start;
    switch (op.kind) {
      case ScratchOperation::Kind::Alloc:
      case ScratchOperation::Kind::Realloc:
        ++(op.kind == ScratchOperation::Kind::Alloc ? s.allocations : s.reallocations);
        s.bytes_allocated += op.size;
        s.largest_allocation = std::max(s.largest_allocation, op.size);
        s.allocation_ns += d;
        s.longest_allocation_ns = std::max(s.longest_allocation_ns, d);
        out.allocation_ns += d;
        break;
      case ScratchOperation::Kind::Free: ++s.frees; break;
      case ScratchOperation::Kind::Reclaim: ++s.reclaims; break;
    }
  }
  for (auto& entry : by_agent) out.agents.push_back(std::move(entry.second));

  std::map<std::string, ScratchKernel> by_kernel;
  for (std::size_t i = 0; i < trace.dispatches.size(); ++i) {
    if (trace.dispatches.shape_of(i).scratch_bytes == 0) continue;  // the whole record only for these
    const Dispatch d = trace.dispatches[i];
    const std::string& name = trace.kernel_name(d);
    ScratchKernel& k = by_kernel[name];
    k.name = name;
    ++k.dispatches;
    k.max_bytes_per_work_item = std::max(k.max_bytes_per_work_item, d.scratch_bytes);
  }
  for (auto& entry : by_kernel) out.kernels.push_back(std::move(entry.second));
  std::stable_sort(out.kernels.begin(), out.kernels.end(), [](const ScratchKernel& a, const ScratchKernel& b) {
    return std::tie(b.max_bytes_per_work_item, b.dispatches) < std::tie(a.max_bytes_per_work_item, a.dispatches);
  });
  return out;
}

}  // namespace rpl::analysis
