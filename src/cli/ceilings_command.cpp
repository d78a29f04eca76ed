// rocm-perf ceilings [-o FILE] [--json]: measures empirical roofline ceilings on the GPU present and writes
// them as a ceilings document (schemas/ceilings.schema.json) that `analyze` / `profile` prefer over the
// built-in device table.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "app/ceilings.hpp"
#include "app/ceilings_file.hpp"
#include "cli/commands.hpp"
#include "report/ceilings_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::cli {
namespace {

struct CeilingsArgs {
  app::CeilingsOptions options;
  std::string output = "ceilings.json";
  CommonOptions common;
};

int run_ceilings_command(const CeilingsArgs& a) {
  set_log_level(a.common);
  app::CeilingsResult r = app::measure_ceilings(a.options);
  app::write_empirical_ceilings(a.output, r.ceilings);
  for (const auto& note : r.notes) log::warn("{}", note);
  if (a.common.json) {
    fmt::print("{}\n", app::empirical_ceilings_document(r.ceilings).dump(2));
  } else if (!a.common.quiet) {
    fmt::print("{}", report::ceilings_table(r));
    log::info("wrote {}", a.output);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

}  // namespace

Action register_ceilings(CLI::App& app) {
  auto args = std::make_shared<CeilingsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "ceilings", "Measure empirical roofline ceilings (copy bandwidth, FMA and matrix throughput) on the NVIDIA GPU "
                  "present; the roofline prefers them over the built-in table");
  cmd->add_option("-o,--output", args->output, "the ceilings JSON file to write (atomically)")->capture_default_str();
  add_common_flags(cmd, args->common, {"print the ceilings document on stdout, nothing else",
                                       "no table; warnings only on stderr", "verbose logs on stderr"});
  cmd->add_option("--device", args->options.device, "CUDA device index")->capture_default_str();
  cmd->add_option("--reps", args->options.reps, "timed repetitions per ceiling; the best counts")
      ->capture_default_str()
      ->check(positive_count());
  cmd->add_option("--bench", args->options.bench, "the benchmark program (default: rpl_ceilings_bench next to rocm-perf)");
  return [cmd, args]() -> int { return cmd->parsed() ? run_ceilings_command(*args) : -1; };
}

}  // namespace rpl::cli
