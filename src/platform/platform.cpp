#include "platform/platform.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include "support/errors.hpp"

namespace rpl::platform {

const char* to_string(Kind k) { return k == Kind::Rocm ? "rocm" : "cuda"; }

std::optional<Kind> parse_kind(const std::string& s) {
  if (s == "auto") return std::nullopt;
  if (s == "rocm") return Kind::Rocm;
  if (s == "cuda") return Kind::Cuda;
  throw Error(ExitCode::Usage, fmt::format("--platform '{}': expected auto, rocm or cuda", s));
}

Kind detect(std::string_view advice) {
  if (find_executable("rocprofv3") || access("/dev/kfd", F_OK) == 0) return Kind::Rocm;
  if (access("/dev/nvidiactl", F_OK) == 0 || find_executable("nvidia-smi")) return Kind::Cuda;
  throw Error(ExitCode::NoDevice,
              fmt::format("no GPU platform found (looked for rocprofv3 or /dev/kfd for ROCm, /dev/nvidiactl or "
                          "nvidia-smi for CUDA); {}",
                          advice));
}

}  // namespace rpl::platform
