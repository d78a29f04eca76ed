// Occupancy of each kernel's most time-consuming launch configuration.
//
// One pass over the dispatches: each dispatch of a selected kernel is keyed by small integer classes
// (the symbol's register counts, the agent's architecture and wave size) plus its block and LDS, and
// its duration is added to that key's total. Classes are computed per symbol / agent beforehand, so
// the per-dispatch work is one hash lookup (skipped when a kernel repeats its previous key).
#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "support/checked_math.hpp"
#include "analysis/kernel_occupancy.hpp"
#include "support/errors.hpp"

namespace rpl::analysis {
namespace {

struct ConfigKey {
  uint32_t kernel;          // index of the kernel in the caller's list
  uint32_t resource_class;  // symbols with equal register counts and static LDS share one
  uint32_t agent_class;     // agents with equal architecture and wave size share one
  uint32_t block[3];
  uint32_t lds_bytes;
  bool operator==(const ConfigKey&) const = default;
};

struct ConfigKeyHash {
  std::size_t operator()(const ConfigKey& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    auto mix = [&h](uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    };
    mix(k.kernel);
    mix((uint64_t{k.resource_class} << 32) | k.agent_class);
    mix((uint64_t{k.block[0]} << 32) | k.block[1]);
    mix((uint64_t{k.block[2]} << 32) | k.lds_bytes);
    return static_cast<std::size_t>(h);
  }
};

struct ConfigTotals {
  TimeNs time = 0;
  std::size_t dispatches = 0;
  std::size_t first_dispatch = 0;  // a representative, and the tie-breaker (earlier wins)
};

constexpr uint32_t kNoKernel = std::numeric_limits<uint32_t>::max();

uint32_t effective_lds(uint32_t dispatch_lds_bytes, const KernelSymbol& s) {
  // The dispatch's group segment includes the static part; an importer that recorded only the
  // symbol's static size still gives a lower bound.
  return std::max(dispatch_lds_bytes, s.static_lds_bytes);
}

KernelOccupancy occupancy_of(const Trace& trace, const std::string& kernel_name, const ConfigTotals& top,
                             std::size_t configurations) {
  KernelOccupancy out;
  out.launch_configurations = configurations;
  const Dispatch& d = trace.dispatches[top.first_dispatch];
  const KernelSymbol& sym = trace.symbols[d.symbol];
  if (d.agent >= trace.agents.size()) {
    out.unavailable = "the dispatch's agent is not recorded";
    return out;
  }
  const Agent& agent = trace.agents[d.agent];
  const std::optional<ArchLimits> limits = arch_limits(agent.name);
  if (!limits) {
    out.unavailable = fmt::format("no occupancy limits for architecture '{}'", agent.name);
    return out;
  }
  if (sym.arch_vgpr_count == 0 && sym.accum_vgpr_count == 0) {
    out.unavailable = "the kernel's register counts are not recorded";
    return out;
  }
  const uint64_t threads = uint64_t{d.block[0]} * d.block[1] * d.block[2];
  if (threads == 0) {
    out.unavailable = "the dispatch's block size is not recorded";
    return out;
  }

  LaunchOccupancy launch;
  launch.arch = limits->arch;
  launch.resources.threads_per_block =
      static_cast<uint32_t>(std::min<uint64_t>(threads, std::numeric_limits<uint32_t>::max()));
  launch.resources.arch_vgprs = sym.arch_vgpr_count;
  launch.resources.accum_vgprs = sym.accum_vgpr_count;
  launch.resources.sgprs = sym.sgpr_count;
  launch.resources.lds_bytes = effective_lds(d.lds_bytes, sym);
  launch.resources.wave_size = agent.wave_front_size;
  launch.time_ns = static_cast<double>(top.time);
  launch.dispatches = top.dispatches;
  try {
    launch.occupancy = compute_occupancy(*limits, launch.resources);
  } catch (const Error& e) {
    // The trace says this launch ran, so either the trace or our table is wrong; report, don't abort.
    out.unavailable = fmt::format("kernel '{}': {}", kernel_name, e.what());
    return out;
  }
  out.top = std::move(launch);
  return out;
}

// kernel_of_symbol: the caller's kernel index per symbol, kNoKernel for symbols not asked about.
std::vector<KernelOccupancy> compute(const Trace& trace, const std::vector<uint32_t>& kernel_of_symbol,
                                     const std::vector<const std::string*>& kernel_names) {
  const std::size_t kernel_count = kernel_names.size();

  // Resource classes per symbol.
  std::vector<uint32_t> resource_class(trace.symbols.size(), 0);
  {
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, uint32_t> ids;
    for (std::size_t s = 0; s < trace.symbols.size(); ++s) {
      if (kernel_of_symbol[s] == kNoKernel) continue;
      const KernelSymbol& sym = trace.symbols[s];
      auto key = std::make_tuple(sym.arch_vgpr_count, sym.accum_vgpr_count, sym.sgpr_count, sym.static_lds_bytes);
      resource_class[s] = ids.emplace(key, static_cast<uint32_t>(ids.size())).first->second;
    }
  }
  // Agent classes; dispatches without a valid agent get one class of their own.
  const uint32_t unknown_agent_class = static_cast<uint32_t>(trace.agents.size());
  std::vector<uint32_t> agent_class(trace.agents.size(), 0);
  {
    std::map<std::pair<std::string, uint32_t>, uint32_t> ids;
    for (std::size_t a = 0; a < trace.agents.size(); ++a) {
      auto key = std::make_pair(canonical_arch(trace.agents[a].name), trace.agents[a].wave_front_size);
      agent_class[a] = ids.emplace(key, static_cast<uint32_t>(ids.size())).first->second;
    }
  }

  std::unordered_map<ConfigKey, ConfigTotals, ConfigKeyHash> totals;
  std::vector<std::pair<ConfigKey, ConfigTotals*>> last(kernel_count, {ConfigKey{}, nullptr});
  const DispatchTable& dispatches = trace.dispatches;
  for (std::size_t i = 0; i < dispatches.size(); ++i) {  // by column: only the fields the key needs
    const Index symbol = dispatches.symbol_of(i);
    if (symbol >= kernel_of_symbol.size()) continue;  // compute_kernel_stats reports these
    const uint32_t kernel = kernel_of_symbol[symbol];
    if (kernel == kNoKernel) continue;
    const Index agent = dispatches.agent_of(i);
    const DispatchShape& shape = dispatches.shape_of(i);
    const ConfigKey key{kernel,
                        resource_class[symbol],
                        agent < trace.agents.size() ? agent_class[agent] : unknown_agent_class,
                        {shape.block[0], shape.block[1], shape.block[2]},
                        effective_lds(shape.lds_bytes, trace.symbols[symbol])};
    auto& [last_key, last_totals] = last[kernel];
    if (last_totals == nullptr || !(last_key == key)) {
      auto [it, inserted] = totals.try_emplace(key);
      if (inserted) it->second.first_dispatch = i;
      last_key = key;
      last_totals = &it->second;
    }
    last_totals->time = saturating_add(last_totals->time, dispatches.duration_of(i));
    ++last_totals->dispatches;
  }

  // Per kernel: the number of configurations and the one with the most time.
  std::vector<std::size_t> configurations(kernel_count, 0);
  std::vector<const ConfigTotals*> top(kernel_count, nullptr);
  for (const auto& [key, t] : totals) {
    ++configurations[key.kernel];
    const ConfigTotals*& best = top[key.kernel];
    if (best == nullptr || t.time > best->time || (t.time == best->time && t.dispatches > best->dispatches) ||
        (t.time == best->time && t.dispatches == best->dispatches && t.first_dispatch < best->first_dispatch))
      best = &t;
  }

  std::vector<KernelOccupancy> out(kernel_count);
  for (std::size_t k = 0; k < kernel_count; ++k) {
    if (top[k] == nullptr) {
      out[k].unavailable = "the kernel has no dispatches";
      continue;
    }
    out[k] = occupancy_of(trace, *kernel_names[k], *top[k], configurations[k]);
  }
  return out;
}

}  // namespace

KernelOccupancy kernel_occupancy(const Trace& trace, const KernelStats& kernel) {
  std::vector<uint32_t> kernel_of_symbol(trace.symbols.size(), kNoKernel);
  for (Index s : kernel.symbols)
    if (s < kernel_of_symbol.size()) kernel_of_symbol[s] = 0;
  return compute(trace, kernel_of_symbol, {&kernel.name}).front();
}

std::vector<KernelOccupancy> kernel_occupancies(const Trace& trace, const KernelStatsResult& stats) {
  std::vector<uint32_t> kernel_of_symbol(trace.symbols.size(), kNoKernel);
  std::vector<const std::string*> names;
  names.reserve(stats.kernels.size());
  for (std::size_t k = 0; k < stats.kernels.size(); ++k) {
    for (Index s : stats.kernels[k].symbols)
      if (s < kernel_of_symbol.size()) kernel_of_symbol[s] = static_cast<uint32_t>(k);
    names.push_back(&stats.kernels[k].name);
  }
  return compute(trace, kernel_of_symbol, names);
}

}  // namespace rpl::analysis
