#include "analysis/collective_calls.hpp"

#include <algorithm>
#include <map>

#include "analysis/collectives.hpp"

namespace rpl::analysis {
namespace {

// Whether kernel operation `k` (from its name) can run call operation `c`.
bool runs(std::string_view k, std::string_view c) {
  if (k == "Generic" || k == c || c == "Group") return true;
  if (is_point_to_point(c)) return is_point_to_point(k);
  return false;
}

struct CallGroup {
  std::vector<Index> calls;
  std::string operation;  // the calls' operation, "Group" when they differ
  bool launches = true;
};

}  // namespace

CallLinks link_collective_calls(const Trace& t, Index process, const std::vector<Index>& kernels) {
  CallLinks out;
  out.calls_of_kernel.assign(kernels.size(), {});
  std::vector<Index> calls;
  for (Index i = 0; i < t.collective_calls.size(); ++i)
    if (t.collective_calls[i].process == process) calls.push_back(i);
  out.calls = calls.size();
  if (calls.empty()) return out;
  std::stable_sort(calls.begin(), calls.end(), [&](Index a, Index b) {
    return t.collective_calls[a].start < t.collective_calls[b].start;
  });
  std::vector<CallGroup> groups;
  std::map<std::pair<uint64_t, uint64_t>, std::size_t> group_of;  // (group, communicator)
  for (Index i : calls) {
    const CollectiveCall& c = t.collective_calls[i];
    std::size_t g = groups.size();
    if (c.group != 0) {
      auto [it, inserted] = group_of.try_emplace({c.group, c.comm_id}, groups.size());
      g = it->second;
      if (!inserted) {
        groups[g].calls.push_back(i);
        if (groups[g].operation != c.operation && !(is_point_to_point(groups[g].operation) && is_point_to_point(c.operation)))
          groups[g].operation = "Group";
        groups[g].launches = groups[g].launches || c.bytes > 0;
        continue;
      }
    }
    groups.push_back({{i}, c.operation, c.comm_size > 1 && c.bytes > 0});
  }
  std::vector<std::string> kernel_op(kernels.size());
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    auto parsed = parse_collective_kernel(t.kernel_name(t.dispatches[kernels[k]]));
    kernel_op[k] = parsed ? parsed->operation : "Generic";
  }
  std::size_t g = 0, k = 0;
  while (g < groups.size() && k < kernels.size()) {
    if (!groups[g].launches) {
      ++g;
      continue;
    }
    if (runs(kernel_op[k], groups[g].operation)) {
      out.calls_of_kernel[k] = groups[g].calls;
      ++g, ++k;
      continue;
    }
    // Disagreement: drop the call group when the next one that launches fits this kernel, else the kernel.
    std::size_t next = g + 1;
    while (next < groups.size() && !groups[next].launches) ++next;
    if (next < groups.size() && runs(kernel_op[k], groups[next].operation)) {
      out.unlinked_calls += groups[g].calls.size();
      ++g;
    } else {
      ++out.unlinked_kernels;
      ++k;
    }
  }
  for (; g < groups.size(); ++g)
    if (groups[g].launches) out.unlinked_calls += groups[g].calls.size();
  out.unlinked_kernels += kernels.size() - k;
  return out;
}

bool is_point_to_point(std::string_view op) { return op == "Send" || op == "Recv" || op == "SendRecv"; }

double bus_bandwidth_factor(std::string_view op, int n) {
  if (n <= 0) return 0;
  const double d = static_cast<double>(n);
  if (op == "AllReduce") return 2.0 * (d - 1) / d;
  if (op == "AllGather" || op == "ReduceScatter" || op == "AllToAll") return (d - 1) / d;
  if (op == "Broadcast" || op == "Reduce" || is_point_to_point(op)) return 1.0;
  return 0;
}

uint64_t algorithm_bytes(std::string_view op, uint64_t bytes, int n) {
  if ((op == "AllGather" || op == "ReduceScatter") && n > 0) return bytes * static_cast<uint64_t>(n);
  return bytes;
}

}  // namespace rpl::analysis
