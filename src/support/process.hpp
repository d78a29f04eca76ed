#pragma once
// Runs a child process (no shell): argv as given, extra environment, stdout/stderr to files or passed
// through, an optional timeout. The exit status and the terminating signal are reported, never hidden.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rpl {

struct ProcessSpec {
  std::vector<std::string> argv;                              // argv[0] is looked up on PATH
  std::vector<std::pair<std::string, std::string>> env;       // added to (or replacing in) the environment
  std::optional<std::string> stdout_file;                     // nullopt: inherit
  std::optional<std::string> stderr_file;                     // nullopt: inherit
  bool stdout_to_stderr = false;                              // inherit, but send stdout to our stderr
  double timeout_s = 0;                                       // 0: none; on expiry SIGTERM, then SIGKILL
};

struct ProcessResult {
  int exit_code = -1;   // valid when signal == 0
  int signal = 0;       // the signal that ended it, 0 if it exited
  bool timed_out = false;
  double wall_ns = 0;
  bool ok() const { return signal == 0 && exit_code == 0 && !timed_out; }
  std::string describe() const;  // "exited with status 3", "killed by signal 11 (Segmentation fault)", ...
};

// Throws rpl::Error(ApplicationFailed) only when the program cannot be started at all (not found, not
// executable); a program that runs and fails is reported in the result.
ProcessResult run_process(const ProcessSpec& spec);

// Full path of an executable found on PATH (or the argument itself if it contains '/'); nullopt if none.
std::optional<std::string> find_executable(const std::string& name);

// The last `max_lines` lines of a text file, for error messages.
std::string tail_of_file(const std::string& path, std::size_t max_lines = 10);

}  // namespace rpl
