#pragma once
// Many replays in one runner process (the optimizer's gates: every input and every timing round of a candidate).
// A fresh process per replay costs the driver's and CUPTI's start-up, most of a short replay's time; a batch pays
// it once. Jobs the batch could not run (another platform's runner, a range the process could not have, a job
// after a failure that may have spoiled the GPU context) come back NotRun: run them with run_replay, each in a
// fresh process, as before.
#include <string>
#include <vector>

#include "app/capture.hpp"
#include "support/errors.hpp"

namespace rpl::app {

struct ReplayJobOutcome {
  enum class Status { Done, Failed, NotRun };
  Status status = Status::NotRun;
  ReplayOutcome outcome;  // Done: as run_replay returns it
  std::string error;      // Failed: as run_replay's exception would say it
  ExitCode error_code = ExitCode::ProfilerFailed;
};

// Every job shares the first job's mode (full-vm), recopy, cache and warmup_ms; each has its own capture, code
// object, dump folder, iterations and verification replays. The time limit is the sum of the jobs' own. Throws rpl::Error
// for what stops every job alike: a capture that fails its check, a missing runner, no temporary folder.
std::vector<ReplayJobOutcome> run_replay_batch(const std::vector<ReplayOptions>& jobs);

}  // namespace rpl::app
