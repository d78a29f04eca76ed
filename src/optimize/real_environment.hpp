#pragma once
// The Environment on a real machine: builds with /bin/sh -c, profiles with our `profile` (CUPTI / rocprofv3),
// captures with `capture`, compiles with nvcc (-cubin for the captured sm_XX) or hipcc (--genco for the
// captured gfx), replays with `replay full-vm` (a fresh process per replay, or one per batch of jobs on CUDA).
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "analysis/roofline.hpp"
#include "app/capture.hpp"
#include "optimize/environment.hpp"

namespace rpl::optimize {

struct RealEnvironmentOptions {
  std::vector<std::string> app;           // APP [ARGS...]
  std::string compiler;                   // "" = nvcc or hipcc by the capture's platform
  std::vector<std::string> compile_flags; // added to the compiler's command line (default -O3)
  std::vector<std::string> include_dirs;  // the user's source folder: candidates are compiled from elsewhere
  std::string log_dir;                    // where build and compiler output goes
  double timeout_s = 0;                   // per application run / replay
};

// The least time one launch can take for the FLOPs it executes: its dominant class's FLOPs per launch over
// that class's peak (a candidate computes the same result, so it executes at least as many); nullopt without
// counter data.
std::optional<double> compute_speed_of_light_ns(const analysis::RooflinePoint& point);

class RealEnvironment : public Environment {
 public:
  explicit RealEnvironment(RealEnvironmentOptions o) : o_(std::move(o)) {}
  CommandOutcome build(const std::string& command) override;
  ProfileOutcome profile(unsigned runs, const std::string& output_dir, bool roofline_counters) override;
  bool capture(const std::string& regex, uint64_t dispatch, const std::string& dir, std::string& why) override;
  CommandOutcome compile(const std::string& source, const std::string& output, const std::string& capture_dir) override;
  ReplayOutcome replay(const std::string& capture_dir, const std::string& code_object, const std::string& dump_dir,
                       unsigned iterations) override;
  std::vector<ReplayOutcome> replay_batch(const std::vector<ReplayJob>& jobs) override;
  double peak_bandwidth_gbps(const std::string& device_name) override;
  std::optional<collectors::CodeObjectFacts> inspect(const std::string& code_object) override;
  std::vector<std::string> parser_flags() const override;

  // The compiler command line for a capture's platform and architecture (exposed for tests).
  static std::vector<std::string> compile_command(const std::string& platform, const std::string& arch, const std::string& compiler,
                                                  const std::vector<std::string>& flags,
                                                  const std::vector<std::string>& include_dirs, const std::string& source,
                                                  const std::string& output);

 private:
  CommandOutcome run_logged(const std::vector<std::string>& argv, const std::string& log_name);
  app::ReplayOptions replay_options(const ReplayJob& job) const;  // the runner's options for one replay
  RealEnvironmentOptions o_;
  std::atomic<int> log_counter_{0};  // compile() runs on several threads (candidates compiled in parallel)
  std::string arch_;
};

}  // namespace rpl::optimize
