// rocm-perf counters list [--device N] [--json]: the hardware counters the GPU present supports
// (AMD: rocprofv3-avail; NVIDIA: the CUPTI profiler's metric enumeration), the names --counters FILE takes.
#include <fmt/core.h>

#include <memory>

#include "app/counters.hpp"
#include "cli/commands.hpp"
#include "report/counters_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/terminal_text.hpp"

namespace rpl::cli {
namespace {

struct CountersArgs {
  int device = 0;
  CommonOptions common;
  std::string platform = "auto";
};

int run_list(const CountersArgs& a) {
  set_log_level(a.common);
  const DeviceCounters d = app::list_counters({platform::parse_kind(a.platform), a.device});
  if (a.common.json)
    fmt::print("{}\n", report::counters_document(d).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
  else
    fmt::print("{}", terminal_safe(report::counters_table(d)));
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

}  // namespace

Action register_counters(CLI::App& app) {
  auto args = std::make_shared<CountersArgs>();
  CLI::App* cmd = app.add_subcommand("counters", "Hardware counters of the GPU present (the names --counters FILE takes)");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand(
      "list", "List the counters the GPU supports (AMD: rocprofv3-avail list --pmc; NVIDIA: the CUPTI profiler's "
              "metric enumeration, base metrics with their submetrics)");
  list->add_option("--device", args->device, "the GPU's index (0, 1, ...)")->capture_default_str()->check(CLI::NonNegativeNumber);
  add_common_flags(list, args->common, {"print a versioned JSON document (schemas/counters-list.schema.json)",
                                        "warnings only on stderr", "verbose logs on stderr"});
  list->add_option("--platform", args->platform, "auto, rocm or cuda")->capture_default_str();
  return [list, args]() -> int { return list->parsed() ? run_list(*args) : -1; };
}

}  // namespace rpl::cli
