#pragma once
// The trace collector for each platform (platform::Collector is the interface the app layer sees).
#include <memory>
#include <optional>
#include <string>

#include "platform/platform.hpp"

namespace rpl::collectors {

// ROCm: rocprofv3 (amd/rocprofv3_collector); CUDA: our CUPTI collector (nvidia/cuda_collector).
std::unique_ptr<platform::Collector> make_collector(platform::Kind kind);

std::unique_ptr<platform::Collector> make_cuda_collector();  // nvidia/cuda_collector.cpp

// NVIDIA: whether the CUDA collector records NCCL's calls (our NCCL profiler plugin, loaded by NCCL >= 2.26
// through NCCL_PROFILER_PLUGIN). `plugin` is the library it loads; `unavailable` says why not when it is
// empty (the user set NCCL_PROFILER_PLUGIN to another plugin; librpl_nccl_profiler.so is not installed).
struct NcclCallRecording {
  std::optional<std::string> plugin;
  std::string unavailable;
};
NcclCallRecording nccl_call_recording();  // nvidia/cuda_collector.cpp

}  // namespace rpl::collectors
