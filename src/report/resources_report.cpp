#include "report/resources_report.hpp"
#include "report/vendor_terms.hpp"

#include <fmt/core.h>

#include "rpl/version.hpp"

namespace rpl::report {
namespace {

nlohmann::json kernel_json(const app::KernelResourcesReport& r) {
  const auto& k = r.kernel;
  nlohmann::json occ = nullptr;
  if (r.occupancy)
    occ = {{"theoretical", r.occupancy->theoretical},
           {"waves_per_simd", r.occupancy->waves_per_simd},
           {"max_waves_per_simd", r.occupancy->max_waves_per_simd},
           {"limiter", r.occupancy->limiter}};
  return {{"file", r.file},
          {"name", k.name},
          {"mangled_name", k.mangled},
          {"vendor", collectors::to_string(k.vendor)},
          {"arch", k.arch},
          {"target", k.target},
          {"container", k.container},
          {"arch_vgprs", k.arch_vgprs},
          {"accum_vgprs", k.accum_vgprs},
          {"sgprs", k.sgprs},
          {"lds_bytes", k.lds_bytes},
          {"scratch_bytes", k.scratch_bytes},
          {"wave_size", k.wave_size},
          {"max_threads_per_block", k.max_threads_per_block},
          {"spills", {{"sgpr", k.sgpr_spills}, {"vgpr", k.vgpr_spills}}},
          {"block_size", r.block_size},
          {"occupancy", occ},
          {"occupancy_unavailable", r.occupancy ? nlohmann::json(nullptr) : nlohmann::json(r.occupancy_unavailable)}};
}

}  // namespace

nlohmann::json resources_document(const std::vector<app::KernelResourcesReport>& reports) {
  nlohmann::json doc = {{"schema_version", "1.0"},
                        {"tool", {{"name", "rocm-perf"}, {"version", kVersion}}},
                        {"kernels", nlohmann::json::array()}};
  for (const auto& r : reports) doc["kernels"].push_back(kernel_json(r));
  return doc;
}

std::string resources_table(const std::vector<app::KernelResourcesReport>& reports) {
  // Each vendor's words (docs/vendor-terms.md); the JSON keys stay neutral.
  const bool nvidia = !reports.empty() && is_nvidia_arch(reports.front().kernel.arch);
  std::string out = fmt::format("{:<44} {:<8} {:>5} {:>5} {:>5} {:>7} {:>7} {:>5} {:>6} {:>6}  {}\n", "kernel", "arch",
                                nvidia ? "regs" : "vgpr", nvidia ? "-" : "agpr", nvidia ? "-" : "sgpr",
                                nvidia ? "smem" : "lds", nvidia ? "local" : "scratch", nvidia ? "warp" : "wave", "block",
                                "occ", "limiter");
  for (const auto& r : reports) {
    const auto& k = r.kernel;
    std::string name = k.name.size() > 44 ? k.name.substr(0, 41) + "..." : k.name;
    out += fmt::format("{:<44} {:<8} {:>5} {:>5} {:>5} {:>7} {:>7} {:>5} {:>6} {:>6}  {}\n", name, k.arch, k.arch_vgprs,
                       k.accum_vgprs, k.sgprs, k.lds_bytes, k.scratch_bytes, k.wave_size, r.block_size,
                       r.occupancy ? fmt::format("{:.0f}%", r.occupancy->theoretical * 100) : "-",
                       r.occupancy ? limiter_text(r.occupancy->limiter, k.arch) : r.occupancy_unavailable);
  }
  if (reports.empty()) out += "(no kernels)\n";
  return out;
}

}  // namespace rpl::report
