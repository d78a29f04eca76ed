#include "collectors/amd/rocprofv3_collector.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

#include "collectors/amd/rocblas_profile_log.hpp"
#include "collectors/amd/rocprofv3_csv_import.hpp"

#include "support/errors.hpp"
#include "support/log.hpp"
#include <fmt/ranges.h>

namespace rpl::collectors {

std::vector<std::string> Rocprofv3Collector::command_line(const platform::CollectRequest& request,
                                                          const std::string& out_dir, bool rocpd) {
  const platform::TraceDomains& t = request.trace;
  std::vector<std::string> argv = {"rocprofv3", "--kernel-trace"};
  if (t.memory_copies) argv.push_back("--memory-copy-trace");
  if (t.all_api) {
    argv.push_back("--hip-trace");  // HIP runtime and compiler API
    argv.push_back("--hsa-trace");
  } else if (t.runtime_api) {
    argv.push_back("--hip-runtime-trace");
  }
  if (t.markers || t.library_calls) argv.push_back("--marker-trace");
  if (t.communication) argv.push_back("--rccl-trace");
  if (t.scratch_memory) argv.push_back("--scratch-memory-trace");
  argv.insert(argv.end(), {"--output-format", rocpd ? "rocpd" : "csv"});
  if (t.native_perfetto) argv.push_back("pftrace");
  argv.insert(argv.end(), {"-d", out_dir, "--"});
  argv.insert(argv.end(), request.argv.begin(), request.argv.end());
  return argv;
}

std::vector<std::pair<std::string, std::string>> library_marker_environment() {
  // rocprofv3 has no rocBLAS, hipBLASLt or MIOpen trace option (its library options are --rccl-trace,
  // --rocdecode-trace, --rocjpeg-trace, --kokkos-trace); hipBLASLt and MIOpen put ROCTx ranges around their
  // API calls when these are set, and --marker-trace records them. A value the user set is kept.
  std::vector<std::pair<std::string, std::string>> env;
  for (const char* name : {"HIPBLASLT_ENABLE_MARKER", "MIOPEN_ENABLE_LOGGING_ROCTX"})
    if (const char* set = std::getenv(name); !set || !*set) env.emplace_back(name, "1");
  return env;
}

std::vector<std::string> find_rocpd_databases(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto& p = it->path();
    if (it->is_regular_file() && p.filename().string().ends_with("_results.db")) out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool rocprofv3_writes_rocpd(const std::string& help_file) {
  if (const char* forced = std::getenv("RPL_ROCPROFV3_OUTPUT"); forced && *forced) {
    if (std::string_view(forced) == "csv") return false;
    if (std::string_view(forced) == "rocpd") return true;
    throw Error(ExitCode::Usage, fmt::format("RPL_ROCPROFV3_OUTPUT={}: one of csv, rocpd", forced));
  }
  // Asked once per rocm-perf process: every run of a profile uses the same rocprofv3.
  static std::optional<bool> known;
  if (known) return *known;
  if (!find_executable("rocprofv3")) return true;  // the caller says rocprofv3 is missing, in its own words
  ProcessSpec spec;
  spec.argv = {"rocprofv3", "--help"};
  spec.stdout_file = help_file;
  spec.stderr_file = help_file + ".stderr";
  spec.timeout_s = 60;
  const ProcessResult r = run_process(spec);
  std::ifstream in(help_file);
  const std::string help((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!r.ok() || help.empty()) {
    log::warn("rocprofv3 --help {}: assuming it writes rocpd (ROCm 7.x)", r.ok() ? "printed nothing" : r.describe());
    return *(known = true);
  }
  return *(known = help.find("rocpd") != std::string::npos);
}

platform::CollectResult Rocprofv3Collector::collect(const platform::CollectRequest& request) {
  if (!find_executable("rocprofv3"))
    throw Error(ExitCode::ProfilerFailed,
                "rocprofv3 was not found on PATH: install ROCm's rocprofiler-sdk (6.2 or later), or use "
                "--no-rocprof for timing only");
  namespace fs = std::filesystem;
  platform::CollectResult result;
  std::string trace_dir = (fs::path(request.run_dir) / "rocpd").string();
  fs::create_directories(trace_dir);
  result.stdout_file = (fs::path(request.run_dir) / "app.stdout").string();
  result.profiler_log = (fs::path(request.run_dir) / "rocprofv3.log").string();
  result.stderr_file = result.profiler_log;  // rocprofv3 and the application share stderr

  const bool rocpd = rocprofv3_writes_rocpd((fs::path(request.run_dir) / "rocprofv3.help").string());
  if (!rocpd)
    log::info("this rocprofv3 (ROCm 6.x) has no rocpd output: tracing to CSV and importing it into rocpd "
              "(unvalidated on AMD hardware)");
  ProcessSpec spec;
  spec.argv = command_line(request, trace_dir, rocpd);
  spec.stdout_file = result.stdout_file;
  if (!request.debug) spec.stderr_file = result.profiler_log;  // --debug: rocprofv3's log goes to our stderr
  spec.timeout_s = request.timeout_s;
  if (request.trace.library_calls) {
    spec.env = library_marker_environment();
    // rocBLAS marks no call: its profile log counts them (rocblas_profile_log.hpp), beside the run's outputs.
    const auto log = fs::absolute(fs::path(request.run_dir) / kRocblasProfileLog).string();
    for (auto& kv : rocblas_profile_environment(log)) spec.env.push_back(std::move(kv));
  }
  log::debug("running: {}", fmt::join(spec.argv, " "));
  result.process = run_process(spec);
  if (!rocpd && !find_rocprofv3_csv(trace_dir).empty()) import_rocprofv3_csv_dir(trace_dir, trace_dir);
  result.databases = find_rocpd_databases(trace_dir);
  if (result.databases.empty()) {
    std::string why = result.process.ok() ? "it exited normally" : "it " + result.process.describe();
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("rocprofv3 wrote no {} under {} ({}){}", rocpd ? "rocpd database" : "CSV trace", trace_dir, why,
                            request.debug ? std::string() : "; its log:\n" + tail_of_file(result.profiler_log)));
  }
  return result;
}

}  // namespace rpl::collectors
