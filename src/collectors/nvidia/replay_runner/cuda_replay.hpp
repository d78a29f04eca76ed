#pragma once
// The CUDA replay runner's work, in a fresh process: reserve every captured range at its original address
// before anything else allocates, back it with device memory, restore the contents, load the code object, launch
// the captured kernel by name with the captured arguments and geometry, time it with events, and compare the
// result with the captured after-snapshot.
#include <optional>
#include <string>

#include "capture/replay_report.hpp"
#include "capture/replay_runner.hpp"

namespace rpl::cuda_capture {

using ReplayOptions = capture::ReplayRunnerOptions;

// Fills `report` as far as it got; throws rpl::Error (AddressRelocation, VerificationMismatch, Input*, ...)
// after filling in what explains the failure.
void run_cuda_replay(const ReplayOptions& options, capture::ReplayReport& report);

}  // namespace rpl::cuda_capture
