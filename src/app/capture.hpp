#pragma once
// Kernel isolation. `capture`: run the application once with the platform's capture library injected and take
// the K-th launch of the first kernel matching a regex into a capture directory. `replay`: start the platform's
// replay runner as a fresh process on a capture directory (reserve-check or full-vm) and collect its document.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "capture/manifest.hpp"
#include "capture/replay_settings.hpp"
#include "platform/platform.hpp"
#include "support/errors.hpp"
#include "support/process.hpp"

namespace rpl::app {

struct CaptureOptions {
  std::vector<std::string> argv;
  std::string kernel_regex = ".*";
  uint64_t dispatch = 1;
  std::string output_dir = "rocm-perf-capture";
  bool exit_after_capture = false;
  std::optional<platform::Kind> platform;  // nullopt: detect
  bool debug = false;
  double timeout_s = 0;
  bool all_kernels = false;   // sweep: launch `dispatch` of every matching kernel, one directory each
  uint64_t max_kernels = 0;   // sweep: at most this many captures (0: no limit)
};

struct CaptureResults {
  std::string dir;
  capture::Manifest manifest;  // single capture
  nlohmann::json index;        // sweep: <dir>/index.json (schemas/capture-index.schema.json)
  ProcessResult process;
};

// Throws rpl::Error: Usage (bad regex), OutputFailed (the directory holds something already),
// ApplicationFailed (not found, or failed before anything was captured), ProfilerFailed (no capture library),
// CaptureFailed (the application ran but the launch was not captured: the reason is in the message; a sweep:
// no kernel was captured).
CaptureResults run_capture(const CaptureOptions& options);

struct ReplayOptions {
  capture::ReplayMode mode = capture::ReplayMode::FullVm;
  std::string capture_dir = "rocm-perf-capture";
  unsigned iterations = 1;
  bool recopy = true;
  std::string code_object;  // "" = the captured one
  std::string dump_dir;
  double timeout_s = 0;
  capture::CacheState cache = capture::CacheState::Warm;  // capture/replay_settings.hpp
  unsigned verify_replays = 2;  // replays of the unchanged code that verification compares
  double warmup_ms = 25;        // untimed launches first, for this long (capture/replay_runner.hpp)
};

struct ReplayOutcome {
  nlohmann::json document;  // schemas/replay.schema.json
  int exit_code = 0;        // 0, AddressRelocation or VerificationMismatch: the document says why
};

// Throws rpl::Error when the runner produced no document (missing capture, corrupt manifest, no GPU, ...).
ReplayOutcome run_replay(const ReplayOptions& options);

// The platform's replay runner (RPL_REPLAY_RUNNER, else the libexec folders); throws ProfilerFailed when absent.
std::string replay_runner_path(const std::string& platform);
// A new empty file (mode 0600) under TMPDIR named <stem>-XXXXXX, for a runner's result; throws OutputFailed.
std::string replay_temporary_file(const std::string& stem);
// The runner's arguments for how each launch is prepared and timed: --cache, --verify-replays, --warmup-ms.
std::vector<std::string> replay_timing_args(const ReplayOptions& options);
// Whether a runner's exit code comes with a replay document (0, AddressRelocation, VerificationMismatch).
bool replay_exit_documented(int exit_code);
// The runner's exit code as ours where it is one (2 to 13), else ProfilerFailed.
ExitCode replay_runner_error(int exit_code);

}  // namespace rpl::app
