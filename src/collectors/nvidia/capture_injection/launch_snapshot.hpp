#pragma once
// Takes one launch apart: before the kernel runs (API enter, after synchronising the context so that all
// preceding work has completed) the code object, parameter buffer, geometry, attributes and every live memory
// region; after it ran (API exit, synchronised again) every region once more. Writes the capture directory
// (capture/manifest.hpp), manifest last.
#include <cuda.h>

#include <array>
#include <string>
#include <vector>

#include "collectors/nvidia/cuda_code_index.hpp"
#include "capture/live_regions.hpp"
#include "capture/manifest.hpp"
#include "collectors/nvidia/capture_injection/module_registry.hpp"

namespace rpl::cuda_capture {

struct CaptureConfig {
  std::string dir;
  std::string kernel_regex;
  uint64_t dispatch = 1;
  std::vector<std::string> command;
  bool verbose = false;
};

struct LaunchInfo {
  CUfunction function = nullptr;  // a CUfunction (CUkernel handles resolved before)
  std::string mangled_name;
  std::string api;  // "cuLaunchKernel", "cuLaunchKernelEx", ...
  std::array<unsigned, 3> grid{}, block{};
  unsigned shared_bytes = 0;
  void** kernel_params = nullptr;
  void** extra = nullptr;
  const CUlaunchAttribute* attributes = nullptr;
  unsigned attribute_count = 0;
  bool cooperative = false;  // cuLaunchCooperativeKernel
};

class LaunchSnapshot {
 public:
  LaunchSnapshot(const CaptureConfig& config, const capture::LiveRegions& live, ModuleRegistry& modules,
                 const collectors::nvidia::CodeLoadBook& loads)
      : config_(config), live_(live), modules_(modules), loads_(loads) {}
  ~LaunchSnapshot();

  // Throws std::runtime_error with a message for the user when the launch cannot be captured.
  void before(const LaunchInfo& launch);
  void after(CUresult launch_result);

  const std::string& code_object_origin() const { return kept_ ? kept_->origin : empty_; }
  std::size_t region_count() const { return manifest_.regions.size(); }
  uint64_t region_bytes() const { return capture::total_region_bytes(manifest_); }

 private:
  void collect_regions(CUmodule module, const KeptModule& kept);
  void snapshot_regions(bool after);
  void record_arguments(const LaunchInfo& launch);

  const CaptureConfig& config_;
  const capture::LiveRegions& live_;
  ModuleRegistry& modules_;
  const collectors::nvidia::CodeLoadBook& loads_;
  capture::Manifest manifest_;
  const KeptModule* kept_ = nullptr;
  std::vector<std::byte> arguments_;
  nlohmann::json skipped_ = nlohmann::json::array();
  void* staging_ = nullptr;
  bool staging_pinned_ = false;
  std::string empty_;
  std::vector<std::byte> ptx_;  // where the cubin was JIT-compiled here from PTX
  std::string code_note_;
};

}  // namespace rpl::cuda_capture
