// rocm-perf analyze DB... : every analysis over existing rocpd databases, offline.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "app/analyze.hpp"
#include "cli/commands.hpp"
#include "report/analyze_report.hpp"
#include "support/log.hpp"
#include "support/errors.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> databases;
  std::string output_dir = "rocm-perf-out";
  CommonOptions common;
  std::size_t top = 10;
  std::vector<std::string> what_if;
  bool lenient = false;
  bool infer = false;
  std::optional<std::string> ceilings;
  std::optional<double> bandwidth;
  bool no_html = false;
  bool per_dispatch = false;
  std::optional<std::string> range;
};

int run(const AnalyzeArgs& a) {
  log::set_level(a.common.debug ? log::Level::Debug
                 : (a.common.quiet || a.common.json) ? log::Level::Warn
                                                     : log::Level::Info);
  app::AnalyzeOptions options;
  options.databases = a.databases;
  for (const auto& spec : a.what_if) options.what_if.push_back(analysis::parse_what_if(spec));
  options.lenient = a.lenient;
  options.infer_dependencies = a.infer;
  options.ceilings_file = a.ceilings;
  options.memory_bandwidth_gbps = a.bandwidth;
  options.per_dispatch_roofline = a.per_dispatch;
  options.range = a.range;
  options.show_progress = !a.common.quiet && !a.common.json && stderr_is_terminal();

  app::AnalyzeResults results = app::run_analyze(options);
  report::ReportOptions ro;
  ro.top = a.top;
  ro.html = !a.no_html;
  nlohmann::json profile = report::profile_document(results);
  report::write_output_files(a.output_dir, profile, &results, ro);

  if (a.common.json) {
    report::JsonStream out(stdout);
    report::write_combined_document(out, profile, &results, ro);
    out.flush();
    std::fputc('\n', stdout);
  } else if (a.common.quiet) {
    fmt::print("{:.6f}\n", results.stats.timing.runtime_ns / 1e6);
  } else {
    fmt::print("{}", report::terminal_summary(results, ro));
    log::info("wrote profile.json, dag.json, analysis.json, roofline.json{} to {}", ro.html ? ", report.html" : "",
              a.output_dir);
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
  cmd->add_option("-o,--output-dir", args->output_dir,
                  "where profile.json, dag.json, analysis.json, roofline.json and report.html go")
      ->capture_default_str();
  auto* json = cmd->add_flag("--json", args->common.json, "print the combined JSON document on stdout, nothing else");
  cmd->add_flag("--quiet", args->common.quiet, "print only the runtime in ms")->excludes(json);
  cmd->add_flag("--debug", args->common.debug, "verbose logs on stderr");
  cmd->add_option("--top", args->top, "kernels to list")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--what-if", args->what_if,
                  "REGEX=FACTOR: scale matching kernels' durations (0.5 = twice as fast) and predict the end "
                  "to end change; repeatable");
  cmd->add_flag("--lenient", args->lenient, "drop invalid records (end < start) with a warning instead of failing");
  cmd->add_flag("--infer-dependencies", args->infer,
                "opt in: add cross-stream edges inferred from timing (labelled as inferred)");
  cmd->add_option("--ceilings", args->ceilings,
                  "measured ceilings (the JSON `rocm-perf ceilings` writes), preferred over the built-in tables");
  cmd->add_option("--memory-bandwidth-gbps", args->bandwidth, "override the device-memory bandwidth ceiling (GB/s)");
  cmd->add_flag("--no-html", args->no_html, "do not write report.html");
  cmd->add_option("--range", args->range,
                  "NAME: analyse the work launched inside the NVTX / ROCTx ranges of that name (default: first to last "
                  "kernel)");
  cmd->add_flag("--per-dispatch", args->per_dispatch, "also a roofline point per profiled dispatch in roofline.json");
  return [cmd, args]() -> int { return cmd->parsed() ? run(*args) : -1; };
}

}  // namespace rpl::cli
