// rpl_replay_cuda: the CUDA replay runner that `rocm-perf replay` starts as a fresh process (so that no CUDA
// allocation precedes the address reservation). Its internal command line, result document and exit codes
// (12 relocation, 13 verification mismatch, ...) are the ones both runners share: capture/replay_runner.hpp.
// With --jobs it replays a batch in one process (the optimizer's gates: many short replays of one capture).
#include "capture/replay_runner.hpp"
#include "collectors/nvidia/replay_runner/cuda_replay.hpp"

int main(int argc, char** argv) {
  using namespace rpl;
  const capture::ReplayRunnerOptions options = capture::parse_replay_runner_args(argc, argv, "rpl_replay_cuda");
  if (!options.jobs_file.empty())
    return capture::run_replay_batch(options, "rpl_replay_cuda", argv[0],
                                     [](const capture::ReplayRunnerOptions& job, capture::ReplayReport& report) {
                                       cuda_capture::run_cuda_replay(job, report);
                                     });
  return capture::run_replay_runner(options, "rpl_replay_cuda", argv[0], [&](capture::ReplayReport& report) {
    cuda_capture::run_cuda_replay(options, report);
  });
}
