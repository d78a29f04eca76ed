// rpl_replay_hsa: the AMD replay runner that `rocm-perf replay` starts as a fresh process (so that nothing
// has mapped memory before the address reservation). Its internal command line, result document and exit codes
// are the ones both runners share (capture/replay_runner.hpp): 8 no HSA runtime / no AMD GPU / runtime
// failure, 12 a range not reservable at its address, 13 verification mismatch, 2-7 bad arguments or capture.
// Environment: RPL_HSA_RUNTIME (the HSA runtime library to load), RPL_REPLAY_TIMEOUT_S (per dispatch, 120).
// UNVALIDATED ON AMD HARDWARE.
#include "capture/replay_runner.hpp"
#include "collectors/amd/replay_runner/hsa_replay.hpp"

int main(int argc, char** argv) {
  using namespace rpl;
  const capture::ReplayRunnerOptions options = capture::parse_replay_runner_args(argc, argv, "rpl_replay_hsa");
  return capture::run_replay_runner(options, "rpl_replay_hsa", argv[0], [&](capture::ReplayReport& report) {
    hsa_replay::run_hsa_replay(options, report);
  });
}
