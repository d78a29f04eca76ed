// profile.json: what ran, for how long, how stable, with which resources and occupancy.
#include "report/analyze_report.hpp"

#include <optional>

#include "report/api_stats_report.hpp"
#include "report/kernel_shapes_report.hpp"
#include "report/roofline_report.hpp"
#include "rpl/version.hpp"

namespace rpl::report {
namespace {

nlohmann::json occupancy_json(const analysis::KernelOccupancy& k) {
  if (!k.top) return nullptr;
  const auto& o = k.top;
  const auto& occ = o->occupancy;
  return {{"theoretical", occ.theoretical},
          {"arch", o->arch},
          {"waves_per_simd", occ.waves_per_simd},
          {"max_waves_per_simd", occ.max_waves_per_simd},
          {"blocks_per_cu", occ.blocks_per_cu},
          {"limiter", occ.limiter},
          {"limits", {{"registers", occ.limit_by_registers},
                      {"sgprs", occ.limit_by_sgprs},
                      {"lds", occ.limit_by_lds},
                      {"slots", occ.limit_by_slots}}},
          {"threads_per_block", occ.threads_per_block},
          {"wave_size", occ.wave_size},
          {"launch_configs", k.launch_configurations}};
}

nlohmann::json resources_json(const Trace& t, const analysis::KernelStats& k) {
  if (k.symbols.empty()) return nullptr;
  const KernelSymbol& s = t.symbols[k.symbols.front()];
  return {{"arch_vgpr_count", s.arch_vgpr_count}, {"accum_vgpr_count", s.accum_vgpr_count},
          {"sgpr_count", s.sgpr_count},           {"static_lds_bytes", s.static_lds_bytes},
          {"private_segment_bytes", s.private_segment_bytes}, {"kernarg_bytes", s.kernarg_size}};
}

// A copy: the trace's dispatches are values built from its columns.
std::optional<Dispatch> first_dispatch_of(const Trace& t, const analysis::KernelStats& k) {
  for (std::size_t i = 0; i < t.dispatches.size(); ++i)
    for (Index s : k.symbols)
      if (t.dispatches.symbol_of(i) == s) return t.dispatches[i];
  return std::nullopt;
}

nlohmann::json agent_json(const Agent& a) {
  return {{"architecture", a.name},        {"product_name", a.product_name}, {"vendor", a.vendor_name},
          {"compute_units", a.cu_count},   {"simd_per_cu", a.simd_per_cu},   {"wave_size", a.wave_front_size},
          {"max_clock_mhz", a.max_clock_mhz}, {"lds_kb", a.lds_size_kb}};
}

}  // namespace

nlohmann::json durations_json(const analysis::DurationStats& d) {
  return {{"count", d.count},         {"total_ns", d.total_ns},   {"mean_ns", d.mean_ns},
          {"median_ns", d.median_ns}, {"min_ns", d.min_ns},       {"max_ns", d.max_ns},
          {"stddev_ns", d.stddev_ns}, {"cv", d.cv},               {"stability", analysis::to_string(d.stability)}};
}

nlohmann::json profile_document(const app::AnalyzeResults& r) {
  const Trace& t = r.trace;
  const auto& timing = r.stats.timing;
  nlohmann::json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "rocm-perf"}, {"version", kVersion}};
  doc["mode"] = "trace";

  nlohmann::json inputs = nlohmann::json::array();
  for (const Process& p : t.processes)
    inputs.push_back({{"file", p.source_file}, {"guid", p.guid}, {"pid", p.pid}, {"hostname", p.hostname},
                      {"command", p.command}});
  doc["processes"] = inputs;

  nlohmann::json gpus = nlohmann::json::array();
  for (const Agent& a : t.agents)
    if (a.is_gpu) gpus.push_back(agent_json(a));
  doc["gpus"] = gpus;

  doc["runtime_ms"] = timing.runtime_ns / 1e6;
  doc["timing"] = {{"runtime_ns", timing.runtime_ns},         {"kernel_busy_ns", timing.kernel_busy_ns},
                   {"gpu_busy_ns", timing.gpu_busy_ns},       {"copy_time_ns", timing.copy_time_ns},
                   {"wall_start_ns", timing.wall_start_ns},   {"wall_end_ns", timing.wall_end_ns},
                   {"wall_span_ns", timing.wall_span_ns},     {"dispatch_count", timing.dispatch_count},
                   {"copy_count", timing.copy_count},         {"process_count", timing.process_count}};

  // The seeds' single-kernel view, for the dominant kernel (null when the trace has only runtime kernels).
  const analysis::KernelStats* dom =
      r.stats.dominant >= 0 ? &r.stats.kernels[static_cast<std::size_t>(r.stats.dominant)] : nullptr;
  if (dom) {
    const std::optional<Dispatch> d = first_dispatch_of(t, *dom);
    nlohmann::json kernel = {{"name", dom->name}, {"mangled_name", dom->mangled_name}};
    if (d) {
      kernel["grid"] = {d->grid[0], d->grid[1], d->grid[2]};
      kernel["block"] = {d->block[0], d->block[1], d->block[2]};
    }
    doc["kernel"] = kernel;
    doc["gpu"] = d && d->agent != kNoIndex ? agent_json(t.agents[d->agent]) : nlohmann::json(nullptr);
    doc["stability"] = durations_json(dom->durations);
    doc["resources"] = resources_json(t, *dom);
    doc["occupancy"] = occupancy_json(r.occupancy[static_cast<std::size_t>(r.stats.dominant)]);
  } else {
    doc["kernel"] = nullptr;
    doc["gpu"] = nullptr;
    doc["stability"] = nullptr;
    doc["resources"] = nullptr;
    doc["occupancy"] = nullptr;
  }
  doc["roofline"] = profile_roofline_json(r);  // null only without any counter data

  nlohmann::json kernels = nlohmann::json::array();
  for (std::size_t i = 0; i < r.stats.kernels.size(); ++i) {
    const auto& k = r.stats.kernels[i];
    kernels.push_back({{"name", k.name},
                       {"mangled_name", k.mangled_name},
                       {"runtime_kernel", k.runtime_kernel},
                       {"durations", durations_json(k.durations)},
                       {"within_shape_cv", k.within_shape_cv},
                       {"within_shape_stability", analysis::to_string(k.within_shape_stability)},
                       {"within_class_cv", k.within_class_cv},
                       {"stability", analysis::to_string(k.stability)},
                       {"stability_measures", analysis::to_string(analysis::VariationScope::WithinDurationClass)},
                       {"shapes", shapes_json(k, k.shapes.size())},
                       {"share_of_gpu_time", k.share_of_gpu_time},
                       {"resources", resources_json(t, k)},
                       {"occupancy", occupancy_json(r.occupancy[i])},
                       {"occupancy_unavailable", r.occupancy[i].top ? nlohmann::json(nullptr)
                                                                    : nlohmann::json(r.occupancy[i].unavailable)}});
  }
  doc["kernels"] = kernels;
  doc["dominant_kernel"] = dom ? nlohmann::json(dom->name) : nlohmann::json(nullptr);
  if (r.api_stats) doc["api_stats"] = api_stats_json(*r.api_stats);
  return doc;
}

}  // namespace rpl::report
