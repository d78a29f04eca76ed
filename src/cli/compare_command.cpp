// rocm-perf compare A B: two runs compared per kernel, per range and on the critical path.
#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "app/compare.hpp"
#include "cli/commands.hpp"
#include "report/compare_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/terminal_text.hpp"

namespace rpl::cli {
namespace {

struct CompareArgs {
  std::string a, b;
  std::string output_dir = "rocm-perf-compare";
  CommonOptions common;
  std::size_t top = 10;
  bool no_html = false;
  std::string names = "short";
  std::size_t name_width = 0;
  std::size_t width = 0;
  app::CompareOptions options;
};

int run_compare_command(CompareArgs& a) {
  set_log_level(a.common);
  a.options.a = a.a;
  a.options.b = a.b;
  a.options.show_progress = show_progress(a.common);
  const analysis::CompareResult result = app::run_compare(a.options);
  // The terminal comparison shows its warnings first; --json and --quiet print none, so they go to stderr.
  if (a.common.json || a.common.quiet)
    for (const auto& w : result.warnings) log::warn("{}", w);
  const nlohmann::json doc = report::write_compare_files(a.output_dir, result, !a.no_html);
  if (a.common.json) {
    fmt::print("{}\n", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } else if (a.common.quiet) {
    // B's kernel time relative to A's, in percent: the one number a regression script checks.
    fmt::print("{:.3f}\n", result.runtime_a_ns > 0 ? 100 * (result.runtime_b_ns - result.runtime_a_ns) / result.runtime_a_ns
                                                   : 0.0);
  } else {
    report::CompareReportOptions ro;
    ro.top = a.top;
    report::parse_name_form(a.names, ro.names);
    ro.name_width = a.name_width;
    ro.width = a.width ? a.width : terminal_columns(STDOUT_FILENO);
    if (ro.width == 0) ro.width = 80;
    fmt::print("{}", terminal_safe(report::compare_terminal(result, ro)));
    log::info("wrote compare.json{} to {}", a.no_html ? "" : ", compare.html", a.output_dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

}  // namespace

Action register_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare two runs: per kernel and per NVTX / ROCTx range time, calls and launch shapes with their "
                 "significance, the critical path and its kernels, roofline points");
  cmd->add_option("A", args->a,
                  "the base run: a rocpd database, a directory of one run's databases, or a `rocm-perf profile` "
                  "output directory (its runs/run-K/ give the spread between runs)")
      ->required();
  cmd->add_option("B", args->b, "the run compared with A (the same forms)")->required();
  cmd->add_option("-o,--output-dir", args->output_dir, "where compare.json and compare.html go")->capture_default_str();
  add_common_flags(cmd, args->common,
                   {"print compare.json on stdout, nothing else",
                    "print only the change of the kernel time from A to B, in percent", "verbose logs on stderr",
                    /*quiet_excludes_json=*/true});
  cmd->add_option("--top", args->top, "rows of each table")->capture_default_str()->check(positive_count());
  cmd->add_option("--range", args->options.range,
                  "NAME: compare the work launched inside the NVTX / ROCTx ranges of that name (default: first to last "
                  "kernel)");
  cmd->add_flag("--lenient", args->options.lenient,
                "drop invalid records (end < start) with a warning instead of failing");
  cmd->add_option("--ceilings", args->options.ceilings_file,
                  "measured ceilings (the JSON `rocm-perf ceilings` writes) for both runs' roofline points");
  cmd->add_flag("--no-html", args->no_html, "do not write compare.html");
  cmd->add_option("--names", args->names, "kernel names in the terminal: short, full or mangled")
      ->capture_default_str()
      ->check(CLI::IsMember({"short", "full", "mangled"}));
  cmd->add_option("--name-width", args->name_width, "N: characters of a short kernel name")
      ->check(CLI::Range(12, 100000).description("N>=12"));
  cmd->add_option("--width", args->width, "N: columns of the terminal output (default: the terminal's, else 80)")
      ->check(CLI::Range(40, 100000).description("N>=40"));
  return [cmd, args]() -> int { return cmd->parsed() ? run_compare_command(*args) : -1; };
}

}  // namespace rpl::cli
