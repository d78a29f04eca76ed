#pragma once
// The one small interface behind which GPU-vendor specifics live. Nothing outside src/collectors/
// includes CUDA or HSA headers; the rest of the tool sees only this and rocpd databases.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/process.hpp"

namespace rpl::platform {

enum class Kind { Rocm, Cuda };
const char* to_string(Kind k);
// "auto" | "rocm" | "cuda"; throws rpl::Error(Usage) otherwise.
std::optional<Kind> parse_kind(const std::string& s);
// What this machine has: ROCm (rocprofv3 on PATH, or /dev/kfd) or CUDA (an NVIDIA driver). Throws
// rpl::Error(NoDevice) naming what was looked for, followed by `advice` (what the calling command offers
// instead), when neither is present.
Kind detect(std::string_view advice = "use --platform rocm or --platform cuda to choose one");

// What a trace run records besides kernel dispatches (always recorded). The defaults are the plain
// `profile` run's; presets (app/profile_presets) change them. A collector records at least what is asked
// (NVIDIA's CUPTI collector always records copies and NVTX ranges); what it cannot record at all is refused
// before the run (app/profile_presets: platform_support).
struct TraceDomains {
  bool memory_copies = true;
  bool runtime_api = true;    // AMD: the HIP runtime API; NVIDIA: the dependency-creating runtime and driver calls
  bool all_api = false;       // every runtime and driver call (AMD: HIP and HSA; NVIDIA: CUDA runtime and driver)
  bool markers = false;       // AMD: ROCTx ranges (--marker-trace); NVIDIA records NVTX ranges always
  bool communication = false; // RCCL calls (AMD: --rccl-trace); NVIDIA: not available (NCCL has no CUPTI domain)
  bool native_perfetto = false;  // AMD: rocprofv3 also writes its own .pftrace beside the rocpd database
  // Calls into hipBLASLt / MIOpen (AMD: their own ROCTx markers, switched on by their environment variables,
  // recorded by --marker-trace) and cuBLAS / cuBLASLt / cuDNN (NVIDIA: their NVTX ranges, which the collector records
  // always, and their own API logs, switched on by their environment variables into RUN/library_logs/).
  bool library_calls = false;
  // AMD: scratch (private segment) allocations of the runtime (--scratch-memory-trace). NVIDIA has no such
  // record; each launch's local memory size is in the kernel records already.
  bool scratch_memory = false;
};

struct CollectRequest {
  std::vector<std::string> argv;  // the application and its arguments
  std::string run_dir;            // a fresh directory for this run's databases and logs
  bool debug = false;             // show the profiler's own logs
  double timeout_s = 0;
  TraceDomains trace;
};

struct CollectResult {
  ProcessResult process;               // the application's (or the profiler wrapper's) end
  std::vector<std::string> databases;  // rocpd databases written by this run, one per process
  std::string stdout_file, stderr_file, profiler_log;
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::string name() const = 0;
  // Runs the application once under the collector. Throws rpl::Error(ProfilerFailed) when the profiler
  // is missing, fails, or writes no database; a failing application is reported in the result.
  virtual CollectResult collect(const CollectRequest& request) = 0;
};

// The implementations, and the factory that picks one: collectors/collector_factory.hpp.

}  // namespace rpl::platform
