// rocm-perf capture [--kernel REGEX] [--dispatch K] [-o DIR] [--] APP [ARGS...]: take one kernel launch out of a
// running application into a capture directory (code object, arguments, geometry, memory before and after).
#include <fmt/core.h>

#include <cstdio>
#include <memory>

#include "app/capture.hpp"
#include "cli/commands.hpp"
#include "support/errors.hpp"
#include "support/terminal_text.hpp"
#include "support/log.hpp"

namespace rpl::cli {
namespace {

struct CaptureArgs {
  std::vector<std::string> command;
  std::string kernel = ".*";
  uint64_t dispatch = 1;
  std::string output_dir = "rocm-perf-capture";
  std::string platform = "auto";
  bool exit_after = false;
  CommonOptions common;
  double timeout_s = 0;
  bool all_kernels = false;
  uint64_t max_kernels = 0;
};

int run_capture_command(const CaptureArgs& a) {
  set_log_level(a.common);
  app::CaptureOptions o;
  o.argv = a.command;
  o.kernel_regex = a.kernel;
  o.dispatch = a.dispatch;
  o.output_dir = a.output_dir;
  o.platform = platform::parse_kind(a.platform);
  o.exit_after_capture = a.exit_after;
  o.debug = a.common.debug;
  o.timeout_s = a.timeout_s;
  o.all_kernels = a.all_kernels;
  o.max_kernels = a.max_kernels;
  if (!a.all_kernels && (a.max_kernels || a.common.json))
    throw Error(ExitCode::Usage, "--max-kernels and --json go with --all-kernels");
  app::CaptureResults r = app::run_capture(o);
  if (a.all_kernels) {
    const auto& sum = r.index["summary"];
    if (a.common.json) {
      fmt::print("{}\n", r.index.dump(2));
    } else {
      fmt::print("{} distinct kernels: {} captured, {} failed, {} skipped, {} not captured\n",
                 sum["distinct_kernels"].get<uint64_t>(), sum["captured"].get<uint64_t>(), sum["failed"].get<uint64_t>(),
                 sum["skipped"].get<uint64_t>(), sum["not_captured"].get<uint64_t>());
      for (const auto& k : r.index["kernels"])
        if (k["status"] != "captured")
          fmt::print("  {} {}: {}\n", k["status"].get<std::string>(), terminal_safe(k["demangled"].get<std::string>()),
                     terminal_safe(k["reason"].get<std::string>()));
      fmt::print("  index: {}/index.json\n", r.dir);
    }
    if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
    return 0;
  }
  const auto& m = r.manifest;
  uint64_t stored = 0;
  for (const auto& g : m.regions) stored += (g.before ? g.before->stored_size : 0) + (g.after ? g.after->stored_size : 0);
  fmt::print("captured {} (launch {} of {})\n", terminal_safe(m.kernel.demangled_name), m.kernel.dispatch_index,
             terminal_safe(m.kernel.mangled_name));
  fmt::print("  grid ({},{},{}) block ({},{},{}) dynamic shared {} B, {} parameter bytes\n", m.geometry.grid[0],
             m.geometry.grid[1], m.geometry.grid[2], m.geometry.block[0], m.geometry.block[1], m.geometry.block[2],
             m.geometry.dynamic_shared_bytes, m.arguments.size);
  fmt::print("  {} memory regions, {:.1f} MiB (before and after: {:.1f} MiB stored), on {} ({})\n", m.regions.size(),
             double(capture::total_region_bytes(m)) / (1 << 20), double(stored) / (1 << 20), m.device_name, m.device_arch);
  fmt::print("  into {}\n", r.dir);
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

}  // namespace

Action register_capture(CLI::App& app) {
  auto args = std::make_shared<CaptureArgs>();
  CLI::App* cmd = app.add_subcommand("capture", "Capture one kernel launch of an application for replay (NVIDIA; AMD unvalidated on hardware)");
  cmd->add_option("command", args->command, "the application and its arguments (put -- before it)")->required();
  cmd->add_option("--kernel", args->kernel, "REGEX over mangled and demangled kernel names; the first kernel launched "
                                            "that matches is the one captured")->capture_default_str();
  cmd->add_option("--dispatch", args->dispatch, "K: capture that kernel's K-th launch")->capture_default_str()->check(positive_count());
  cmd->add_option("-o,--output-dir", args->output_dir, "the capture directory (new or empty)")->capture_default_str();
  cmd->add_option("--platform", args->platform, "auto, cuda or rocm")->capture_default_str();
  cmd->add_flag("--all-kernels", args->all_kernels,
                 "sweep (NVIDIA): capture launch K of EVERY kernel that matches --kernel, each into DIR/kNNNN, listed "
                 "with its outcome in DIR/index.json");
  cmd->add_option("--max-kernels", args->max_kernels, "with --all-kernels: capture at most N kernels (0: no limit); "
                                                      "later kernels are listed as skipped")->capture_default_str();
  cmd->add_flag("--exit-after-capture", args->exit_after, "end the application (status 0) once the capture is written (a sweep: once --max-kernels are)");
  add_common_flags(cmd, args->common, {"with --all-kernels: print the index (schemas/capture-index.schema.json) on stdout",
                                       "no progress messages on stderr", "verbose capture-library logs on stderr"});
  cmd->add_option("--timeout", args->timeout_s, "seconds before the application is killed (0: none)");
  cmd->positionals_at_end();
  return [cmd, args]() -> int { return cmd->parsed() ? run_capture_command(*args) : -1; };
}

}  // namespace rpl::cli
