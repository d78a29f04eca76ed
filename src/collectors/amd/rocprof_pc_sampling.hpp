#pragma once
// rocprofv3's PC sampling output (ROCm 7, beta): UNVALIDATED ON HARDWARE, written from the documented CSV
// columns (shared/reference/amd-profiling-stack.md §2.3, §3.4) with no AMD GPU at hand.
//   *_pc_sampling_host_trap.csv:   Sample_Timestamp, Exec_Mask, Dispatch_Id, Instruction, Instruction_Comment,
//                                  Correlation_Id
//   *_pc_sampling_stochastic.csv:  the same + Wave_Issued_Instruction, Instruction_Type, Stall_Reason, Wave_Count
// Each row is one sample; the kernel comes from kernel_trace.csv (Dispatch_Id -> Kernel_Name). Columns are
// found by header name. Instruction_Comment holds the source location ("file.hip:42") where the code object
// has line information.
#include <string>
#include <string_view>
#include <vector>

#include "model/pc_samples.hpp"

namespace rpl::collectors {

// The rocprofv3 options of the PC-sampling run (host trap, time unit, `interval_us`).
std::vector<std::string> rocprofv3_pc_sampling_options(unsigned interval_us);

// Samples of one PC-sampling CSV, aggregated per (kernel, instruction, stall reason). `kernel_trace` is the
// run's kernel_trace.csv text (may be empty: kernels are then named "dispatch <id>"). Throws
// rpl::Error(InputInvalid) naming `source` when a required column is missing.
std::vector<PcSampleRecord> parse_rocprof_pc_sampling(std::string_view csv, std::string_view kernel_trace,
                                                      const std::string& source);

}  // namespace rpl::collectors
