#pragma once
// Everything `rocm-perf optimize` needs from outside the process: building the application, profiling it,
// capturing a launch, compiling a candidate into a code object, replaying a code object on a capture. The
// loop talks only to this interface, so its logic is tested with a scripted stand-in (tests) and runs on a
// GPU with the real one (real_environment.cpp: our profile, capture and replay).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectors/code_object_facts.hpp"

namespace rpl::optimize {

struct CommandOutcome {
  bool ok = false;
  std::string status;    // "exited with status 2", ...
  std::string messages;  // the command's output (compiler errors for the repair loop), tail-trimmed
};

struct ProfileOutcome {
  std::vector<double> runtime_per_run_ns;  // SUM of kernel time per run (the seeds' runtime)
  // Kernels by critical-path contribution: [{"name", "time_on_path_ns", "fraction_of_path"}]
  nlohmann::json ranking = nlohmann::json::array();
  nlohmann::json analysis = nlohmann::json::object();  // facts about the kernels for proposers
  std::string output_dir;
};

struct ReplayOutcome {
  bool ok = false;
  std::string error;        // launch or synchronisation failure, relocation, ... (the runner's words)
  double median_ns = 0;     // device-event time per launch
  std::string device_name;
  bool ran = true;  // false: a batch did not run this job (replay it alone)
  double wall_s = 0;  // the runner's own wall time for this replay (0: not said)
};

struct ReplayJob {
  std::string capture_dir, code_object, dump_dir;
  unsigned iterations = 1;
  unsigned verify_replays = 2;  // replays checked against the capture's after-snapshot first (0: none, timing only)
};

class Environment {
 public:
  virtual ~Environment() = default;
  virtual CommandOutcome build(const std::string& command) = 0;
  // Throws rpl::Error(ApplicationFailed, ...) when the application fails. roofline_counters: also a counter
  // pass (the baseline's), so each kernel's entry in `analysis` carries its FLOPs and the compute-side speed of
  // light (`speed_of_light_compute_ns`); a failed counter pass leaves them out, with `counter_failure` said.
  virtual ProfileOutcome profile(unsigned runs, const std::string& output_dir, bool roofline_counters) = 0;
  // The dispatch-th launch of the kernel matching `regex` into `dir`; nullopt (with `why`) when not captured.
  virtual bool capture(const std::string& regex, uint64_t dispatch, const std::string& dir, std::string& why) = 0;
  // Compiles `source` into the code object `output` for the GPU the capture was taken on.
  virtual CommandOutcome compile(const std::string& source, const std::string& output, const std::string& capture_dir) = 0;
  // clang arguments that give the source parser the application's header paths and macros (those of the compile
  // flags); none by default.
  virtual std::vector<std::string> parser_flags() const { return {}; }
  // Replays the code object on the capture (iterations launches, memory restored before each); with a
  // dump_dir, every region's final bytes are written there.
  virtual ReplayOutcome replay(const std::string& capture_dir, const std::string& code_object, const std::string& dump_dir,
                               unsigned iterations) = 0;
  // The jobs replayed in one go where the environment can (one runner process for all of them); the outcomes
  // in job order, ran = false for a job it did not run. By default none is run: the caller replays each alone.
  virtual std::vector<ReplayOutcome> replay_batch(const std::vector<ReplayJob>& jobs) {
    std::vector<ReplayOutcome> none(jobs.size());
    for (auto& o : none) o.ran = false;
    return none;
  }
  // What the binary gates judge in a code object this environment compiled (ABI, symbols, clock reads, ...);
  // nullopt when it cannot tell (a scripted stand-in). Throws rpl::Error when the file cannot be read.
  virtual std::optional<collectors::CodeObjectFacts> inspect(const std::string& code_object) {
    (void)code_object;
    return std::nullopt;
  }
  // Peak device-memory bandwidth (GB/s) of the named GPU, 0 when unknown: the speed-of-light bound.
  virtual double peak_bandwidth_gbps(const std::string& device_name) = 0;
};

}  // namespace rpl::optimize
