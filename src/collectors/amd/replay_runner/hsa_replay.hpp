#pragma once
// The AMD replay runner's work, in a fresh process (rpl_replay_hsa, started by `rocm-perf replay`):
//  1. read the manifest and plan the reservations before anything else maps memory;
//  2. aperture steering (capture/address_steering.hpp): placeholders over the planned ranges, hsa_init(),
//     placeholders removed;
//  3. hsa_amd_vmem_address_reserve at exactly each range's address, the result checked (a relocation aborts
//     with exit code 12; nothing ever runs elsewhere);
//  4. back each range with memory of its captured placement (hsa_amd_vmem_handle_create + map + set_access),
//     restore the before-snapshot;
//  5. load the code object (captured, or --code-object), find the kernel by its captured symbol name, place
//     the captured argument bytes in a kernarg buffer, dispatch with the captured geometry on an AQL queue;
//  6. time every iteration from the dispatch's profiling timestamps, restoring memory in between unless
//     --no-recopy; compare the result with the after-snapshot.
// UNVALIDATED ON AMD HARDWARE.
#include <string>

#include "capture/replay_report.hpp"
#include "capture/replay_runner.hpp"

namespace rpl::hsa_replay {

using ReplayOptions = capture::ReplayRunnerOptions;

// Fills `report` as far as it got; throws rpl::Error after filling in what explains the failure:
// AddressRelocation (12) for a range that cannot be had at its address, VerificationMismatch (13),
// ProfilerFailed (8) for a missing HSA runtime, no AMD GPU or a runtime error, Input* for capture problems.
void run_hsa_replay(const ReplayOptions& options, capture::ReplayReport& report);

}  // namespace rpl::hsa_replay
