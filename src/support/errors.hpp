#pragma once
// Error types and the process exit codes they map to. Every failure that reaches the CLI is one of
// these, so exit codes are consistent across commands (documented in README.md, "Exit codes").
#include <stdexcept>
#include <string>

namespace rpl {

enum class ExitCode : int {
  Ok = 0,
  Internal = 1,          // a bug or an unexpected condition
  Usage = 2,             // bad command line
  InputMissing = 3,      // input file does not exist or cannot be read
  InputCorrupt = 4,      // not an SQLite database, or a truncated / damaged one
  InputNotRocpd = 5,     // SQLite, but without the rocpd tables
  InputEmpty = 6,        // a rocpd trace with no dispatches or copies
  InputInvalid = 7,      // trace data that breaks its own rules (end < start, duplicate ids, ...)
  ProfilerFailed = 8,    // the profiler (rocprofv3, our collector) failed or wrote nothing
  ApplicationFailed = 9, // the profiled application exited non-zero or crashed
  OutputFailed = 10,     // an output file could not be written
  CaptureFailed = 11,    // rocm-perf capture: the application ran but no launch was captured
  AddressRelocation = 12,  // rocm-perf replay: a captured address range cannot be reserved at its address
  VerificationMismatch = 13,  // rocm-perf replay: the replayed result differs from the captured one
  NoDevice = 14,         // rocm-perf ceilings: no usable GPU to measure
  ModelEndpointFailed = 15,  // optimize --proposer llm: the model endpoint refused, failed or was unreachable
  CounterPassFailed = 16,  // profile --roofline/--deep: trace and analysis written, the counter pass failed
  Unsupported = 17,      // the GPU or platform present cannot do what was asked (a preset, a counter): nothing ran
};

// An error the user can act on: message names the file or value and what is wrong.
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

inline int to_int(ExitCode c) { return static_cast<int>(c); }

}  // namespace rpl
