// Placeholder until the CUPTI collector lands.
#include "platform/platform.hpp"
#include "support/errors.hpp"

namespace rpl::platform {
std::unique_ptr<Collector> make_cuda_collector() {
  throw Error(ExitCode::ProfilerFailed, "the CUDA collector is not built into this rocm-perf");
}
}  // namespace rpl::platform
