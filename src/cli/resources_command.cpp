// rocm-perf resources BINARY...: per-kernel registers, LDS and scratch read from GPU binaries, and the
// theoretical occupancy they allow at a launch configuration.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "app/resources.hpp"
#include "cli/commands.hpp"
#include "report/vendor_terms.hpp"
#include "rpl/version.hpp"
#include "support/errors.hpp"

namespace rpl::cli {
namespace {

struct ResourcesArgs {
  app::ResourcesOptions options;
  bool json = false;
};

nlohmann::json to_json(const app::KernelResourcesReport& r) {
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

int run(const ResourcesArgs& a) {
  auto reports = app::run_resources(a.options);
  if (a.json) {
    nlohmann::json doc = {{"schema_version", "1.0"},
                          {"tool", {{"name", "rocm-perf"}, {"version", kVersion}}},
                          {"kernels", nlohmann::json::array()}};
    for (const auto& r : reports) doc["kernels"].push_back(to_json(r));
    fmt::print("{}\n", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
    return 0;
  }
  // Each vendor's words (docs/vendor-terms.md); the JSON keys above stay neutral.
  const bool nvidia = !reports.empty() && report::is_nvidia_arch(reports.front().kernel.arch);
  fmt::print("{:<44} {:<8} {:>5} {:>5} {:>5} {:>7} {:>7} {:>5} {:>6} {:>6}  {}\n", "kernel", "arch",
             nvidia ? "regs" : "vgpr", nvidia ? "-" : "agpr", nvidia ? "-" : "sgpr", nvidia ? "smem" : "lds",
             nvidia ? "local" : "scratch", nvidia ? "warp" : "wave", "block", "occ", "limiter");
  for (const auto& r : reports) {
    const auto& k = r.kernel;
    std::string name = k.name.size() > 44 ? k.name.substr(0, 41) + "..." : k.name;
    fmt::print("{:<44} {:<8} {:>5} {:>5} {:>5} {:>7} {:>7} {:>5} {:>6} {:>6}  {}\n", name, k.arch, k.arch_vgprs,
               k.accum_vgprs, k.sgprs, k.lds_bytes, k.scratch_bytes, k.wave_size, r.block_size,
               r.occupancy ? fmt::format("{:.0f}%", r.occupancy->theoretical * 100) : "-",
               r.occupancy ? report::limiter_text(r.occupancy->limiter, k.arch) : r.occupancy_unavailable);
  }
  if (reports.empty()) fmt::print("(no kernels)\n");
  return 0;
}

}  // namespace

Action register_resources(CLI::App& app) {
  auto args = std::make_shared<ResourcesArgs>();
  CLI::App* cmd = app.add_subcommand(
      "resources", "Kernel registers, LDS and scratch from GPU binaries (AMD code objects and fat binaries, NVIDIA "
                   "cubins and executables via cuobjdump), with the theoretical occupancy they allow");
  cmd->add_option("binaries", args->options.binaries, "GPU binaries")->required();
  cmd->add_option("--block", args->options.block_size,
                  "threads per block for the occupancy (default: the kernel's recorded maximum, else 256)");
  cmd->add_option("--dynamic-lds", args->options.dynamic_lds_bytes, "dynamic LDS / shared memory bytes per block");
  cmd->add_option("--kernel", args->options.kernel_filter, "REGEX: only matching kernels");
  cmd->add_flag("--json", args->json, "print a versioned JSON document (schemas/resources.schema.json)");
  return [cmd, args]() -> int { return cmd->parsed() ? run(*args) : -1; };
}

}  // namespace rpl::cli
