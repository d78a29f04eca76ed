#include "cli/analysis_flags.hpp"
#include "cli/commands.hpp"

#include <unistd.h>

#include "support/terminal_text.hpp"

namespace rpl::cli {

void add_analysis_flags(CLI::App* cmd, AnalysisFlags& f, const AnalysisFlagsHelp& help) {
  app::AnalysisOptions& a = f.analysis;
  cmd->add_option("-o,--output-dir", f.output_dir, help.output_dir)->capture_default_str();
  add_common_flags(cmd, f.common, {"print the combined JSON document on stdout, nothing else", help.quiet, help.debug,
                                   /*quiet_excludes_json=*/true});
  cmd->add_option("--top", f.top, "kernels to list")->capture_default_str()->check(positive_count());
  // One value per --what-if, so that a database after it is not taken for a second scenario.
  cmd->add_option("--what-if", f.what_if,
                  "REGEX=FACTOR: scale matching kernels' durations (0.5 = twice as fast) and predict the end "
                  "to end change; repeat the flag for several scenarios")
      ->allow_extra_args(false);
  cmd->add_option("--kernel", a.kernel_filter, "REGEX: report only matching kernels (runtime = their time)");
  cmd->add_flag("--lenient", a.lenient, "drop invalid records (end < start) with a warning instead of failing");
  cmd->add_flag("--infer-dependencies", a.infer_dependencies,
                "opt in: add cross-stream edges inferred from timing (labelled as inferred)");
  cmd->add_option("--ceilings", a.ceilings_file,
                  "measured ceilings (the JSON `rocm-perf ceilings` writes), preferred over the built-in tables");
  cmd->add_option("--memory-bandwidth-gbps", a.memory_bandwidth_gbps,
                  "override the device-memory bandwidth ceiling (GB/s)")
      ->check(positive_value());
  cmd->add_flag("--no-html", f.no_html, "do not write report.html");
  cmd->add_option("--range", a.range,
                  "NAME: analyse the work launched inside the NVTX / ROCTx ranges of that name (default: first to last "
                  "kernel)");
  cmd->add_flag("--api-stats", a.api_stats,
                "per-API-call statistics of the runtime and driver calls in the trace (count, total, mean, p50, p99, "
                "min, max), like rocprofv3 --stats");
  cmd->add_option("--names", f.names,
                  "kernel names in the terminal: short (shortened in the middle of template arguments, never into "
                  "two equal names), full (demangled, whole) or mangled")
      ->capture_default_str()
      ->check(CLI::IsMember({"short", "full", "mangled"}));
  cmd->add_option("--name-width", f.name_width,
                  "N: characters of a short kernel name (default: what the terminal width leaves beside the numbers)")
      ->check(CLI::Range(12, 100000).description("N>=12"));
  cmd->add_option("--width", f.width,
                  "N: columns of the terminal output (default: the terminal's width, 80 when it has none); narrow "
                  "widths leave out the least telling columns")
      ->check(CLI::Range(40, 100000).description("N>=40"));
  cmd->add_flag("--per-dispatch", a.per_dispatch_roofline, "also a roofline point per profiled dispatch in roofline.json");
}

app::AnalysisOptions analysis_options(const AnalysisFlags& f) {
  app::AnalysisOptions a = f.analysis;
  a.what_if = app::parse_what_if_specs(f.what_if);
  return a;
}

report::ReportOptions report_options(const AnalysisFlags& f) {
  report::ReportOptions ro;
  ro.top = f.top;
  ro.html = !f.no_html;
  report::parse_name_form(f.names, ro.names);
  ro.name_width = f.name_width;
  ro.width = f.width ? f.width : terminal_columns(STDOUT_FILENO);
  if (ro.width == 0) ro.width = 80;
  ro.kernel_filter = f.analysis.kernel_filter;
  return ro;
}

}  // namespace rpl::cli
