#pragma once
// `profile --pc-sampling`: one more run of the application under the platform's PC sampler, after the trace
// runs, and its hotspots per kernel (analysis/pc_hotspots.hpp).
// NVIDIA: librpl_pc_sampling.so (CUPTI PC Sampling API, continuous mode) through CUDA_INJECTION64_PATH;
//         SASS text from nvdisasm where it is installed (CUDA toolkit), source lines from CUPTI where the
//         cubin has line information (-lineinfo).
// AMD:    rocprofv3 --pc-sampling-beta-enabled --pc-sampling-method host_trap (UNVALIDATED ON HARDWARE).
#include <optional>
#include <string>
#include <vector>

#include "analysis/pc_hotspots.hpp"
#include "platform/platform.hpp"

namespace rpl::app {

struct PcSamplingOptions {
  std::vector<std::string> argv;
  std::string run_dir;
  platform::Kind platform = platform::Kind::Cuda;
  std::size_t top = 10;               // instructions and lines per kernel
  unsigned amd_interval_us = 1000;    // host_trap interval
  double timeout_s = 0;
  bool debug = false;
};

struct PcSamplingResult {
  std::string method;             // "cupti-pc-sampling (continuous)" or "rocprofv3 host_trap"
  bool validated_on_hardware = true;  // false on AMD
  std::string disassembler;       // the nvdisasm used for SASS text; "" when none was found
  uint64_t total_samples = 0;
  std::vector<analysis::KernelHotspots> kernels;
  std::string run_dir;
};

// Throws rpl::Error(ProfilerFailed) when the sampler is missing, the run fails, or no samples come back.
PcSamplingResult run_pc_sampling(const PcSamplingOptions& options);

}  // namespace rpl::app
