// rocm-perf export perfetto DB... -o FILE : the trace as Perfetto / Chrome JSON trace events.
#include <fmt/core.h>

#include <memory>

#include "app/analyze.hpp"
#include "cli/commands.hpp"
#include "report/perfetto_export.hpp"
#include "support/log.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> databases;
  std::string output = "trace.perfetto.json";
  bool quiet = false;
  bool debug = false;
  bool no_flows = false;
  bool no_critical_path = false;
  bool lenient = false;
};

int run(const ExportArgs& a) {
  log::set_level(a.debug ? log::Level::Debug : a.quiet ? log::Level::Warn : log::Level::Info);
  app::AnalyzeOptions options;
  options.databases = a.databases;
  options.lenient = a.lenient;
  options.show_progress = !a.quiet && stderr_is_terminal();
  app::AnalyzeResults results = app::run_analyze(options);
  report::PerfettoOptions po;
  po.flows = !a.no_flows;
  po.critical_path_track = !a.no_critical_path;
  report::write_perfetto_file(a.output, results, po);
  log::info("wrote {} ({} dispatches, {} copies): open it in ui.perfetto.dev", a.output,
            results.trace.dispatches.size(), results.trace.copies.size());
  return 0;
}

}  // namespace

Action register_export(CLI::App& app) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Export rocpd databases to other tools' formats");
  cmd->require_subcommand(1);
  CLI::App* perfetto = cmd->add_subcommand(
      "perfetto", "Perfetto / Chrome JSON trace: one track per stream, flows for recorded dependencies, the "
                  "critical path as its own track");
  perfetto->add_option("databases", args->databases, "rocpd SQLite databases (one per process)")->required();
  perfetto->add_option("-o,--output", args->output, "the JSON file to write")->capture_default_str();
  perfetto->add_flag("--quiet", args->quiet, "no logs");
  perfetto->add_flag("--debug", args->debug, "verbose logs on stderr");
  perfetto->add_flag("--no-flows", args->no_flows, "no dependency arrows");
  perfetto->add_flag("--no-critical-path", args->no_critical_path, "no separate critical-path track");
  perfetto->add_flag("--lenient", args->lenient, "drop invalid records (end < start) with a warning");
  return [perfetto, args]() -> int { return perfetto->parsed() ? run(*args) : -1; };
}

}  // namespace rpl::cli
