// rocm-perf profile [options] [--] APP [ARGS...]: run the application N times under the platform's
// collector (or with no profiler: --no-rocprof) and write the same outputs as analyze, plus the traces.
#include <fmt/core.h>

#include <cstdio>
#include <memory>

#include "app/profile.hpp"
#include "cli/commands.hpp"
#include "report/analyze_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

bool g_double_dash = false;  // `--` appeared on the command line

// The seeds' form `rocm-perf profile ./app --json` hands --json to the application (the application may
// take such a flag itself). Without `--`, say so loudly, once per flag.
void warn_about_trailing_flags(const std::vector<std::string>& command) {
  static const char* const kOwnFlags[] = {"--json", "--quiet", "--runs", "-o", "--output-dir", "--roofline", "--deep",
                                          "--kernel", "--range", "--top", "--what-if", "--debug", "--no-rocprof",
                                          "--platform", "--counter-tool", "--counter-launches", "--timeout"};
  if (g_double_dash) return;
  for (std::size_t i = 1; i < command.size(); ++i)
    for (const char* flag : kOwnFlags) {
      const std::string& arg = command[i];
      if (arg == flag || arg.rfind(std::string(flag) + "=", 0) == 0)
        log::warn("'{}' follows the application, so it is passed to the application, not to rocm-perf; put rocm-perf "
                  "options before the application (rocm-perf profile {} -- {} ...)",
                  arg, flag, command[0]);
    }
}

struct ProfileArgs {
  std::vector<std::string> command;
  std::string output_dir = "rocm-perf-out";
  CommonOptions common;
  unsigned runs = 5;
  bool no_rocprof = false;
  std::string platform = "auto";
  std::string kernel;
  std::string range;
  std::size_t top = 10;
  std::vector<std::string> what_if;
  bool infer = false;
  bool roofline = false;
  bool deep = false;
  std::string counter_tool = "auto";
  std::size_t counter_launches = 0;
  std::string ceilings;
  double memory_bandwidth_gbps = 0;
  double timeout_s = 0;
};

int run(const ProfileArgs& a) {
  log::set_level(a.common.debug ? log::Level::Debug
                 : (a.common.quiet || a.common.json) ? log::Level::Warn
                                                     : log::Level::Info);
  warn_about_trailing_flags(a.command);
  app::ProfileOptions o;
  o.argv = a.command;
  o.runs = a.runs;
  o.output_dir = a.output_dir;
  o.timing_only = a.no_rocprof;
  o.platform = platform::parse_kind(a.platform);
  if (!a.kernel.empty()) o.kernel_filter = a.kernel;
  if (!a.range.empty()) o.range = a.range;
  for (const auto& spec : a.what_if) o.what_if.push_back(analysis::parse_what_if(spec));
  o.infer_dependencies = a.infer;
  o.roofline = a.roofline;
  o.deep = a.deep;
  o.counter_tool = a.counter_tool;
  o.counter_launches = a.counter_launches;
  if (!a.ceilings.empty()) o.ceilings_file = a.ceilings;
  if (a.memory_bandwidth_gbps > 0) o.memory_bandwidth_gbps = a.memory_bandwidth_gbps;
  o.debug = a.common.debug;
  o.show_progress = !a.common.quiet && !a.common.json && stderr_is_terminal();
  o.timeout_s = a.timeout_s;

  app::ProfileResults p = app::run_profile(o);
  report::ReportOptions ro;
  ro.top = a.top;
  nlohmann::json profile = report::profile_command_document(p);
  const app::AnalyzeResults* analysis = p.analysis ? &*p.analysis : nullptr;
  report::write_output_files(a.output_dir, profile, analysis, ro);

  if (a.common.json) {
    report::JsonStream out(stdout);
    report::write_combined_document(out, profile, analysis, ro);
    out.flush();
    std::fputc('\n', stdout);
  } else if (a.common.quiet) {
    fmt::print("{:.6f}\n", p.runtime_across_runs.mean_ns / 1e6);
  } else {
    fmt::print("{}", report::profile_terminal_summary(p, ro));
    log::info("wrote outputs and per-run traces to {}", a.output_dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return p.counter_failure ? static_cast<int>(ExitCode::CounterPassFailed) : 0;
}

}  // namespace

void note_command_line(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") g_double_dash = true;
}

Action register_profile(CLI::App& app) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand("profile", "Run an application under the GPU collector (N runs) and analyse it");
  cmd->add_option("command", args->command, "the application and its arguments (put -- before it)")->required();
  cmd->add_option("--runs", args->runs, "runs, each a separate process")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output-dir", args->output_dir, "outputs and per-run traces")->capture_default_str();
  auto* json = cmd->add_flag("--json", args->common.json, "print the combined JSON document on stdout, nothing else");
  cmd->add_flag("--quiet", args->common.quiet, "print only the runtime in ms (mean over runs)")->excludes(json);
  cmd->add_flag("--debug", args->common.debug, "show the profiler's own logs and verbose logs on stderr");
  cmd->add_flag("--no-rocprof", args->no_rocprof, "timing only: whole-process wall time over N runs, no profiler");
  cmd->add_option("--platform", args->platform, "auto, rocm or cuda")->capture_default_str();
  cmd->add_option("--kernel", args->kernel, "REGEX: report only matching kernels");
  cmd->add_option("--range", args->range,
                  "NAME: analyse the work launched inside the application's NVTX / ROCTx ranges of that name (default: "
                  "first to last kernel)");
  cmd->add_option("--top", args->top, "kernels to list")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--what-if", args->what_if, "REGEX=FACTOR, as in analyze; repeatable");
  cmd->add_flag("--infer-dependencies", args->infer, "opt in: cross-stream edges inferred from timing (labelled)");
  cmd->add_flag("--roofline", args->roofline,
                "after the trace runs, a counter pass (NVIDIA: ncu or CUPTI; AMD: rocprofv3 -i) for the roofline and the "
                "bottleneck labels; see docs/profile-counters.md");
  cmd->add_flag("--deep", args->deep,
                "deep analysis of the kernels (NVIDIA: ncu stall, occupancy, branch and cache metrics; AMD: a "
                "rocprofv3 --att run); use --kernel to choose them");
  cmd->add_option("--counter-tool", args->counter_tool,
                  "NVIDIA counter pass: ncu, cupti (in process, CUPTI range profiler: about half ncu's cost, but "
                  "no cache flush between replay passes), or auto (ncu where installed, else cupti)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cupti", "ncu"}));
  cmd->add_option("--counter-launches", args->counter_launches,
                  "N: the CUPTI counter pass profiles only the first N launches of each kernel (the rest run "
                  "unprofiled; the roofline and labels come from those N)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--ceilings", args->ceilings, "measured ceilings (rocm-perf ceilings), as in analyze");
  cmd->add_option("--memory-bandwidth-gbps", args->memory_bandwidth_gbps,
                  "override the device-memory bandwidth ceiling (GB/s), as in analyze")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", args->timeout_s, "seconds per run before the application is killed (0: none)");
  cmd->positionals_at_end();
  return [cmd, args]() -> int { return cmd->parsed() ? run(*args) : -1; };
}

}  // namespace rpl::cli
