#pragma once
// Stub headers so that CUDA and HIP kernel sources parse as plain C++ without any GPU toolkit installed. They
// declare the runtime API and device intrinsics loosely (variadic templates accept any arguments): the parser
// only needs the kernels' structure and signatures, never the semantics of host calls. `__global__`,
// `__device__`, `__shared__`, `__launch_bounds__(...)` become annotations the source model reads back.
#include <string>
#include <utility>
#include <vector>

namespace rpl::optimize {

// (relative header path, contents) for every stub header, e.g. ("cuda_runtime.h", ...).
const std::vector<std::pair<std::string, std::string>>& gpu_stub_headers();

// The header force-included before the source (the keywords and builtin variables).
inline constexpr const char* kStubPrelude = "rpl_gpu_prelude.h";

}  // namespace rpl::optimize
