// rocm-perf resources BINARY...: per-kernel registers, LDS and scratch read from GPU binaries, and the
// theoretical occupancy they allow at a launch configuration.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "app/resources.hpp"
#include "cli/commands.hpp"
#include "report/resources_report.hpp"
#include "support/errors.hpp"
#include "support/terminal_text.hpp"

namespace rpl::cli {
namespace {

struct ResourcesArgs {
  app::ResourcesOptions options;
  CommonOptions common;
};

int run_resources_command(const ResourcesArgs& a) {
  set_log_level(a.common);
  auto reports = app::run_resources(a.options);
  if (a.common.json)
    fmt::print("{}\n", report::resources_document(reports).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  else
    fmt::print("{}", terminal_safe(report::resources_table(reports)));
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
  add_common_flags(cmd, args->common, {"print a versioned JSON document (schemas/resources.schema.json)",
                                       "warnings only on stderr", "verbose logs on stderr"});
  return [cmd, args]() -> int { return cmd->parsed() ? run_resources_command(*args) : -1; };
}

}  // namespace rpl::cli
