#pragma once
// A CUDA driver error as "CUDA_ERROR_X (description)", for messages.
#include <cuda.h>
#include <fmt/core.h>

#include <string>

namespace rpl::cuda_capture {

inline std::string cu_error(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return fmt::format("{} ({})", name ? name : "CUDA error", text ? text : std::to_string(int(r)));
}

}  // namespace rpl::cuda_capture
