// NVIDIA: runs the application with our CUPTI collector injected through the CUDA driver's documented
// injection entry point (CUDA_INJECTION64_PATH): nothing is recompiled, relinked or preloaded. Each process
// writes <run>/rocpd/<hostname>/<pid>_results.db; spills left by processes that crashed are converted here.
#include <fmt/core.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "collectors/amd/rocprofv3_collector.hpp"  // find_rocpd_databases
#include "collectors/collector_factory.hpp"
#include "collectors/nvidia/library_api_logs.hpp"
#include "collectors/nvidia/nccl_profile_file.hpp"
#include "collectors/nvidia/spill_to_rocpd.hpp"
#include "store/rocpd_collective_calls.hpp"
#include "platform/platform.hpp"
#include "support/errors.hpp"
#include "support/libexec.hpp"
#include "support/log.hpp"
#include "support/process.hpp"

namespace rpl::collectors {
namespace fs = std::filesystem;
namespace {

constexpr const char* kLibraryName = "librpl_cuda_collector.so";

// RPL_CUDA_COLLECTOR, else next to the rocm-perf executable (the build tree and an install put it there).
bool has_collective_calls(const std::vector<std::string>& databases) {
  for (const auto& db : databases)
    if (rocpd::count_collective_calls(db) > 0) return true;
  return false;
}

std::string find_collector_library() {
  if (auto path = find_libexec(kLibraryName, "RPL_CUDA_COLLECTOR")) return *path;
  throw Error(ExitCode::ProfilerFailed,
              fmt::format("the CUDA collector {} was not found in {} (it is built only where CUPTI is found); set "
                          "RPL_CUDA_COLLECTOR to its path",
                          kLibraryName, libexec_locations()));
}

// The machine's GPU links (nvidia-smi's view), for the bus bandwidth of collectives: written where the
// spill converter looks (<trace_dir>/<host>/gpu_topology.txt), through a file of this process renamed over it
// (ranks of one host started by --rank-wrapper each write it). Best effort: without nvidia-smi, nothing.
void record_topology(const std::string& trace_dir) {
  if (!find_executable("nvidia-smi")) return;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const fs::path dir = fs::path(trace_dir) / host;
  fs::create_directories(dir);
  const std::string own = fmt::format("gpu_topology.{}", getpid());
  const fs::path part = dir / (own + ".part"), text = dir / (own + ".txt");
  {
    std::ofstream out(text);
    for (const auto& argv : nvidia_topology_commands()) {
      ProcessSpec spec;
      spec.argv = argv;
      spec.stdout_file = part.string();
      spec.stderr_file = "/dev/null";
      spec.timeout_s = 20;
      std::string line;
      for (const auto& a : argv) line += (line.empty() ? "" : " ") + a;
      out << "== " << line << "\n";
      try {
        if (run_process(spec).ok()) out << std::ifstream(part).rdbuf() << "\n";
      } catch (const Error& e) {
        log::debug("{}: {}", line, e.what());
      }
    }
  }
  std::error_code ec;
  fs::remove(part, ec);
  fs::rename(text, dir / "gpu_topology.txt", ec);
  if (ec) log::debug("{}: {}", text.string(), ec.message());
}

// cuBLAS, cuBLASLt and cuDNN put no NVTX range around their calls (PyTorch 2.11 / CUDA 13.0 on an H200): their own
// API logs list them (library_api_logs.hpp), written into RUN/library_logs/ beside the clocks that convert their
// wall-clock times. A library whose logging the user set keeps it.
void add_library_logging(const std::string& run_dir, std::vector<std::pair<std::string, std::string>>& env) {
  const std::string dir = fs::absolute(fs::path(run_dir) / kLibraryLogDir).string();
  fs::create_directories(dir);
  LibraryLogEnvironment logging = library_log_environment(dir);
  for (const std::string& kept : logging.kept)
    log::warn("{}: the library's API logging is the user's, so --library-trace does not read its calls", kept);
  env.insert(env.end(), logging.env.begin(), logging.env.end());
  write_library_log_clock(dir, current_library_log_clock());
}

class CudaCollector : public platform::Collector {
 public:
  std::string name() const override { return "cupti"; }

  platform::CollectResult collect(const platform::CollectRequest& request) override {
    std::string library = find_collector_library();
    platform::CollectResult result;
    std::string trace_dir = (fs::path(request.run_dir) / "rocpd").string();
    fs::create_directories(trace_dir);
    result.stdout_file = (fs::path(request.run_dir) / "app.stdout").string();
    result.stderr_file = (fs::path(request.run_dir) / "app.stderr").string();
    result.profiler_log = result.stderr_file;  // the collector reports on the application's stderr

    ProcessSpec spec;
    spec.argv = request.argv;
    spec.env = {{"CUDA_INJECTION64_PATH", library}, {"RPL_TRACE_DIR", trace_dir}};
    if (request.debug) spec.env.emplace_back("RPL_CUDA_VERBOSE", "1");
    // NCCL's calls (communicator, bytes, algorithm) through our profiler plugin, unless the user chose one.
    const NcclCallRecording nccl = nccl_call_recording();
    if (nccl.plugin)
      spec.env.emplace_back("NCCL_PROFILER_PLUGIN", *nccl.plugin);
    else if (std::getenv("NCCL_PROFILER_PLUGIN"))
      log::warn("{}: collectives are matched by kernel name and order, without bytes", nccl.unavailable);
    record_topology(trace_dir);
    // The collector's API modes: every runtime and driver call, none, or (default) the dependency-creating ones.
    if (request.trace.all_api) spec.env.emplace_back("RPL_CUDA_API", "all");
    else if (!request.trace.runtime_api) spec.env.emplace_back("RPL_CUDA_API", "none");
    if (request.trace.library_calls) add_library_logging(request.run_dir, spec.env);
    spec.stdout_file = result.stdout_file;
    if (!request.debug) spec.stderr_file = result.stderr_file;
    spec.timeout_s = request.timeout_s;
    result.process = run_process(spec);

    // Processes that crashed or were killed leave their spill behind: convert what they recorded.
    for (const auto& db : convert_leftover_spills(trace_dir)) log::info("converted a leftover spill into {}", db);
    result.databases = find_rocpd_databases(trace_dir);
    if (request.trace.communication && nccl.plugin && !has_collective_calls(result.databases))
      log::warn("no NCCL call was recorded: either the application made none, or its NCCL is older than 2.26 "
                "(the first to load profiler plugins; collectives are then matched by kernel name only)");
    if (result.databases.empty())
      throw Error(ExitCode::ProfilerFailed,
                  fmt::format("the CUDA collector wrote no trace under {} (the application {}): did it use the "
                              "GPU? Is {} loadable (libcupti.so next to it or on the library path)?{}",
                              trace_dir, result.process.describe(), library,
                              request.debug ? std::string() : "\n" + tail_of_file(result.stderr_file)));
    return result;
  }
};

}  // namespace

std::unique_ptr<platform::Collector> make_cuda_collector() { return std::make_unique<CudaCollector>(); }

NcclCallRecording nccl_call_recording() {
  NcclCallRecording r;
  if (const char* own = std::getenv("NCCL_PROFILER_PLUGIN"); own && *own) {
    r.unavailable = fmt::format("NCCL_PROFILER_PLUGIN is set ({}), so NCCL loads that plugin and not ours: NCCL "
                                "calls are not recorded",
                                own);
    return r;
  }
  r.plugin = find_libexec("librpl_nccl_profiler.so", "RPL_NCCL_PROFILER");
  if (!r.plugin)
    r.unavailable = fmt::format("librpl_nccl_profiler.so (the NCCL profiler plugin that records NCCL calls) is not "
                                "in {} nor named by RPL_NCCL_PROFILER",
                                libexec_locations());
  return r;
}

}  // namespace rpl::collectors
