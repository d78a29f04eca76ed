#pragma once
// The trace collector for each platform (platform::Collector is the interface the app layer sees).
#include <memory>

#include "platform/platform.hpp"

namespace rpl::collectors {

// ROCm: rocprofv3 (amd/rocprofv3_collector); CUDA: our CUPTI collector (nvidia/cuda_collector).
std::unique_ptr<platform::Collector> make_collector(platform::Kind kind);

std::unique_ptr<platform::Collector> make_cuda_collector();  // nvidia/cuda_collector.cpp

}  // namespace rpl::collectors
