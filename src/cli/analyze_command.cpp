// rocm-perf analyze DB... : every analysis over existing rocpd databases, offline.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "app/analyze.hpp"
#include "cli/analysis_flags.hpp"
#include "report/analyze_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/terminal_text.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> databases;
  AnalysisFlags flags;
};

int run(const AnalyzeArgs& a) {
  set_log_level(a.flags.common);
  app::AnalyzeOptions options;
  static_cast<app::AnalysisOptions&>(options) = analysis_options(a.flags);
  options.databases = a.databases;
  options.show_progress = !a.flags.common.quiet && !a.flags.common.json && stderr_is_terminal();

  app::AnalyzeResults results = app::run_analyze(options);
  const report::ReportOptions ro = report_options(a.flags);
  nlohmann::json profile = report::profile_document(results);
  report::write_output_files(a.flags.output_dir, profile, &results, ro);

  if (a.flags.common.json) {
    report::JsonStream out(stdout);
    report::write_combined_document(out, profile, &results, ro);
    out.flush();
    std::fputc('\n', stdout);
  } else if (a.flags.common.quiet) {
    fmt::print("{:.6f}\n", results.stats.timing.runtime_ns / 1e6);
  } else {
    fmt::print("{}", terminal_safe(report::terminal_summary(results, ro)));
    log::info("wrote profile.json, dag.json, analysis.json, roofline.json{} to {}", ro.html ? ", report.html" : "",
              a.flags.output_dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

}  // namespace

Action register_analyze(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse rocpd databases: kernel statistics, occupancy, "
                                                "critical path, what-if");
  cmd->add_option("databases", args->databases, "rocpd SQLite databases (one per process)")->required();
  add_analysis_flags(cmd, args->flags,
                     {"where profile.json, dag.json, analysis.json, roofline.json and report.html go",
                      "print only the runtime in ms", "verbose logs on stderr"});
  return [cmd, args]() -> int { return cmd->parsed() ? run(*args) : -1; };
}

}  // namespace rpl::cli
