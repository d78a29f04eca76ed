#include "collectors/amd/pmc_import.hpp"

#include <algorithm>
#include <unordered_map>

namespace rpl::collectors {
namespace {

// Each process's rank in start order (the same command's processes start in the same order every run).
std::vector<std::size_t> start_order_ranks(const Trace& t) {
  const auto order = processes_in_start_order(t);
  std::vector<std::size_t> rank(t.processes.size());
  for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  return rank;
}

std::vector<Index> dispatches_in_launch_order(const Trace& t) {
  std::vector<Index> order;
  for (Index d = 0; d < t.dispatches.size(); ++d)
    if (t.dispatches[d].symbol < t.symbols.size()) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) {
    const Dispatch &x = t.dispatches[a], &y = t.dispatches[b];
    return x.start != y.start ? x.start < y.start : x.dispatch_id < y.dispatch_id;
  });
  return order;
}

}  // namespace

CounterSamples pmc_counter_samples(const Trace& pass, const std::string& run) {
  CounterSamples samples;
  samples.tool = "rocprofv3";
  samples.run = run;
  samples.kernel_names = CounterKernelNames::DisplayName;
  samples.processes = CounterProcesses::ByStartOrder;
  samples.process_count = pass.processes.size();

  std::unordered_map<Index, std::size_t> counter_of_string;  // pass string id -> samples counter
  std::vector<std::vector<std::pair<std::size_t, double>>> values_of(pass.dispatches.size());
  for (const CounterSample& s : pass.counters) {
    if (s.dispatch >= values_of.size()) continue;
    auto [it, fresh] = counter_of_string.try_emplace(s.counter, samples.counters.size());
    if (fresh) samples.counters.push_back(pass.strings.at(s.counter));
    values_of[s.dispatch].emplace_back(it->second, s.value);
  }
  const auto rank = start_order_ranks(pass);
  for (Index d : dispatches_in_launch_order(pass)) {
    const Dispatch& disp = pass.dispatches[d];
    CounterInstance& i = samples.instances.emplace_back();
    i.kernel = pass.kernel_name(disp);
    i.process = static_cast<int64_t>(disp.process < rank.size() ? rank[disp.process] : 0);
    i.grid = std::array<uint64_t, 3>{disp.grid[0], disp.grid[1], disp.grid[2]};
    i.block = std::array<uint64_t, 3>{disp.block[0], disp.block[1], disp.block[2]};
    i.values = std::move(values_of[d]);
    i.measured = !i.values.empty();
  }
  return samples;
}

}  // namespace rpl::collectors
