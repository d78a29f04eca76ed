#include "app/diagnose.hpp"

#include <cmath>
#include <unordered_map>

#include "analysis/amd_counter_analysis.hpp"
#include "analysis/occupancy.hpp"

namespace rpl::app {
namespace {

// Dispatches that carry at least one counter, grouped by kernel display name. Empty without counters.
std::unordered_map<std::string, std::vector<Index>> counted_dispatches_by_kernel(const Trace& trace) {
  std::unordered_map<std::string, std::vector<Index>> by_kernel;
  if (trace.counters.empty()) return by_kernel;
  std::vector<bool> counted(trace.dispatches.size(), false);
  for (const CounterSample& c : trace.counters)
    if (c.dispatch < counted.size()) counted[c.dispatch] = true;
  for (Index d = 0; d < counted.size(); ++d)
    if (counted[d]) by_kernel[trace.strings.at(trace.symbols[trace.dispatches.symbol_of(d)].display_name)].push_back(d);
  return by_kernel;
}

std::string canonical_arch_of(const Agent& a) { return analysis::canonical_arch(a.name); }

analysis::CounterFamily family_of(const Trace& trace, const std::vector<Index>& dispatches) {
  if (dispatches.empty()) return analysis::CounterFamily::None;
  Index agent = trace.dispatches[dispatches.front()].agent;
  return agent < trace.agents.size() ? analysis::counter_family(trace.agents[agent].name) : analysis::CounterFamily::None;
}

// The kernel's deep analysis from the counters its dispatches carry: ncu's metrics on NVIDIA, the AMD
// counter formulas on AMD (amd_counter_analysis.hpp). nullopt when nothing could be measured.
std::optional<analysis::DeepAnalysis> counter_deep_analysis(const Trace& trace, const std::vector<Index>& dispatches) {
  const auto family = family_of(trace, dispatches);
  if (family == analysis::CounterFamily::None) return std::nullopt;
  analysis::DeepAnalysis deep = family == analysis::CounterFamily::Nvidia
                                    ? analysis::ncu_deep_analysis(trace, dispatches)
                                    : analysis::amd_counter_deep_analysis(trace, dispatches);
  if (!deep.available) return std::nullopt;
  return deep;
}

// Duration and device waves, from the trace: what the short-kernel rule (LT1) needs.
void set_launch_shape_inputs(const AnalyzeResults& r, std::size_t kernel, analysis::BottleneckInputs& in) {
  const auto& k = r.stats.kernels[kernel];
  if (k.durations.count > 0) in.set(analysis::BottleneckMetric::DurationUs, k.durations.mean_ns / 1e3);
  if (kernel >= r.occupancy.size() || !r.occupancy[kernel].top || k.shapes.empty() || k.symbols.empty()) return;
  const auto& occ = r.occupancy[kernel].top->occupancy;
  uint32_t units = 0;
  for (const Agent& a : r.trace.agents)
    if (a.is_gpu && a.cu_count > 0 && canonical_arch_of(a) == r.occupancy[kernel].top->arch) units = a.cu_count;
  if (units == 0 || occ.blocks_per_cu == 0) return;
  const auto& s = k.shapes.front();
  double blocks = 1;
  for (int d = 0; d < 3; ++d) blocks *= s.block[d] ? std::ceil(double(s.grid[d]) / s.block[d]) : s.grid[d];
  in.set(analysis::BottleneckMetric::DeviceWaves, blocks / (double(units) * occ.blocks_per_cu));
}

}  // namespace

void diagnose_kernels(AnalyzeResults& r, const AnalyzeOptions& options) {
  analysis::RooflineOptions ro;
  if (r.empirical_ceilings) ro.empirical = &*r.empirical_ceilings;
  ro.memory_bandwidth_gbps = options.memory_bandwidth_gbps;
  ro.per_dispatch = options.per_dispatch_roofline;
  r.roofline = analysis::compute_roofline(r.trace, ro);

  // The roofline kernel of each name with the most profiled time (kernels are sorted by it).
  std::unordered_map<std::string, int> roofline_of;
  for (std::size_t i = 0; i < r.roofline.kernels.size(); ++i)
    roofline_of.try_emplace(r.roofline.kernels[i].name, static_cast<int>(i));
  auto counted = counted_dispatches_by_kernel(r.trace);

  r.diagnosis.assign(r.stats.kernels.size(), KernelDiagnosis{});
  for (std::size_t i = 0; i < r.stats.kernels.size(); ++i) {
    const auto& kernel = r.stats.kernels[i];
    KernelDiagnosis& dx = r.diagnosis[i];
    if (auto it = roofline_of.find(kernel.name); it != roofline_of.end()) dx.roofline = it->second;
    if (auto it = counted.find(kernel.name); it != counted.end()) dx.deep = counter_deep_analysis(r.trace, it->second);
    // AMD: the ATT run's results (profile --deep), beside the counters' where both exist.
    for (const auto& [name, deep] : options.external_deep)
      if (name == kernel.name && deep.available) {
        if (!dx.deep) dx.deep = deep;
        else if (dx.deep->source == "counters") dx.deep = analysis::merge_deep_analyses(std::move(*dx.deep), deep);
        break;
      }
    const analysis::RooflinePoint* point =
        dx.roofline >= 0 ? &r.roofline.kernels[static_cast<std::size_t>(dx.roofline)].point : nullptr;
    std::optional<double> theoretical;
    if (i < r.occupancy.size() && r.occupancy[i].top) theoretical = r.occupancy[i].top->occupancy.theoretical;
    analysis::BottleneckInputs inputs = analysis::bottleneck_inputs(point, dx.deep ? &*dx.deep : nullptr, theoretical);
    set_launch_shape_inputs(r, i, inputs);
    dx.bottleneck = analysis::classify_bottleneck(inputs);
  }
}

}  // namespace rpl::app
