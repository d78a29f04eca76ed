// rocm-perf replay reserve-check|full-vm [--capture-dir DIR] ...: replay a captured launch in a fresh process at
// its original virtual addresses (full-vm), or only check that every captured range can be reserved there.
#include <fmt/core.h>

#include <cstdio>
#include <memory>

#include "app/capture.hpp"
#include "cli/commands.hpp"
#include "report/replay_summary.hpp"
#include "support/errors.hpp"
#include "support/terminal_text.hpp"
#include "support/log.hpp"

namespace rpl::cli {
namespace {

struct ReplayArgs {
  app::ReplayOptions options;
  CommonOptions common;
};

int run_replay_command(const ReplayArgs& a) {
  set_log_level(a.common);
  app::ReplayOutcome out = app::run_replay(a.options);
  if (a.common.json) fmt::print("{}\n", out.document.dump(1));
  else fmt::print("{}", terminal_safe(report::replay_summary_text(out.document)));
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return out.exit_code;
}

CLI::App* add_mode(CLI::App* replay, const char* name, const char* help, const std::shared_ptr<ReplayArgs>& args) {
  CLI::App* cmd = replay->add_subcommand(name, help);
  cmd->add_option("--capture-dir", args->options.capture_dir, "what rocm-perf capture wrote")->capture_default_str();
  add_common_flags(cmd, args->common, {"print the replay document (schemas/replay.schema.json) on stdout",
                                       "warnings only on stderr", "verbose logs on stderr"});
  cmd->add_option("--timeout", args->options.timeout_s, "seconds before the replay is killed (0: none)");
  return cmd;
}

}  // namespace

Action register_replay(CLI::App& app) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* replay = app.add_subcommand("replay", "Replay a captured kernel launch in a fresh process (see capture)");
  replay->require_subcommand(1);
  CLI::App* check = add_mode(replay, "reserve-check", "Check that every captured address range can be reserved at "
                                                      "its original address; report per region", args);
  CLI::App* full = add_mode(replay, "full-vm", "Reserve the captured address space, restore memory, launch the kernel "
                                               "N times (device-event timing) and verify against the captured result", args);
  full->add_option("--iterations", args->options.iterations, "launches, without rebuilding the address space")
      ->capture_default_str()->check(CLI::Range(1u, 1000000u));
  full->add_flag("--no-recopy", [args](int64_t) { args->options.recopy = false; },
                 "stateful: do not restore memory between iterations");
  full->add_option("--code-object", args->options.code_object, "launch the kernel from this cubin/code object instead "
                                                               "(another build of the same kernel)");
  full->add_option("--dump-dir", args->options.dump_dir, "write every region's final memory there (r<ID>.bin, raw)");
  // Checked against the two words first (the same message as before), then parsed once into the enum.
  full->add_option_function<std::string>(
          "--cache",
          [args](const std::string& word) {
            args->options.cache = word == "cold" ? capture::CacheState::Cold : capture::CacheState::Warm;
          },
          "cache state of the timed launches: warm (one untimed launch first, only what the kernel writes "
          "restored before each) or cold (L2 flushed before each)")
      ->default_str("warm")->check(CLI::IsMember({"warm", "cold"}));
  full->add_option("--warmup-ms", args->options.warmup_ms,
                   "untimed launches, each prepared as a timed one, for this many milliseconds before the timed ones, "
                   "so the GPU runs at the clocks of a busy application (0: none)")
      ->capture_default_str()->check(CLI::Range(0.0, 60000.0));
  full->add_option("--verify-replays", args->options.verify_replays,
                   "replays of the unchanged code from the captured state that verification compares with each other "
                   "and with the after-snapshot (bytes that differ between them are nondeterministic)")
      ->capture_default_str()->check(CLI::Range(1u, 100u));
  return [check, full, args]() -> int {
    if (check->parsed()) args->options.mode = capture::ReplayMode::ReserveCheck;
    else if (full->parsed()) args->options.mode = capture::ReplayMode::FullVm;
    else return -1;
    return run_replay_command(*args);
  };
}

}  // namespace rpl::cli
