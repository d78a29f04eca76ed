#include "app/load_trace.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "collectors/amd/rocblas_profile_log.hpp"
#include "collectors/nvidia/library_api_logs.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_scratch_memory.hpp"
#include "support/log.hpp"
#include "support/progress.hpp"

namespace rpl::app {

std::vector<std::string> unrelated_runs_warnings(const Trace& trace) {
  std::vector<std::string> warnings;
  if (trace.processes.size() < 2) return warnings;
  std::set<std::string> hosts;
  for (const auto& p : trace.processes)
    if (!p.hostname.empty()) hosts.insert(p.hostname);
  if (hosts.size() > 1) {
    std::string list;
    for (const auto& h : hosts) list += (list.empty() ? "" : ", ") + h;
    warnings.push_back(fmt::format(
        "{} processes from {} hosts ({}) are merged into one timeline, but clocks of different hosts are not "
        "comparable: for the ranks of one job use `analyze --ranks` (or a directory of their databases)",
        trace.processes.size(), hosts.size(), list));
  }
  // Each process's work interval; a gap between them means runs one after the other, not one job.
  std::vector<std::pair<TimeNs, TimeNs>> spans(trace.processes.size(), {0, 0});
  std::vector<bool> seen(trace.processes.size(), false);
  for (std::size_t i = 0; i < trace.dispatches.size(); ++i) {
    const Index process = trace.dispatches.process_of(i);
    if (process >= spans.size()) continue;
    const TimeNs start = trace.dispatches.start_of(i), end = trace.dispatches.end_of(i);
    auto& [first, last] = spans[process];
    first = seen[process] ? std::min(first, start) : start;
    last = seen[process] ? std::max(last, end) : end;
    seen[process] = true;
  }
  std::vector<std::pair<TimeNs, TimeNs>> busy;
  for (std::size_t p = 0; p < spans.size(); ++p)
    if (seen[p]) busy.push_back(spans[p]);
  std::sort(busy.begin(), busy.end());
  TimeNs reach = busy.empty() ? 0 : busy.front().second, widest_gap = 0;
  for (std::size_t i = 1; i < busy.size(); ++i) {
    widest_gap = std::max(widest_gap, busy[i].first - reach);
    reach = std::max(reach, busy[i].second);
  }
  if (widest_gap > 0)
    warnings.push_back(fmt::format(
        "the processes' GPU work does not overlap in time (up to {:.3f} s between one process's last kernel and "
        "the next one's first): they look like separate runs, yet they are analysed as one, over a window of "
        "{:.3f} s; analyse each database on its own, or compare them",
        widest_gap / 1e9, (reach - busy.front().first) / 1e9));
  return warnings;
}

Trace load_trace(const LoadOptions& options) {
  rocpd::ReadOptions read;
  read.lenient = options.lenient;
  read.jobs = options.jobs;
  Progress progress(options.show_progress);
  if (options.show_progress)
    read.progress = [&](std::string_view file, std::size_t rows) {
      progress.update(fmt::format("reading {}: {} rows", file, rows));
    };
  progress.phase(fmt::format("reading {} database(s)", options.databases.size()));
  Trace trace = rocpd::read_databases(options.databases, read);
  progress.done();
  for (const auto& w : unrelated_runs_warnings(trace)) log::warn("{}", w);
  return trace;
}

std::vector<ScratchOperation> load_scratch_memory(const std::vector<std::string>& databases) {
  std::vector<ScratchOperation> out;
  for (const std::string& db : databases) {
    std::vector<ScratchOperation> ops = rocpd::read_scratch_memory(db);
    out.insert(out.end(), ops.begin(), ops.end());
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ScratchOperation& a, const ScratchOperation& b) { return a.start < b.start; });
  return out;
}

std::vector<LibraryCallCount> load_library_call_counts(const std::string& run_dir) {
  return collectors::read_rocblas_profile_log((std::filesystem::path(run_dir) / collectors::kRocblasProfileLog).string());
}

std::vector<LoggedLibraryCall> load_logged_library_calls(const std::string& run_dir) {
  return collectors::read_library_api_logs((std::filesystem::path(run_dir) / collectors::kLibraryLogDir).string());
}

std::vector<LoggedLibraryCall> load_library_log_folder(const std::string& logs_dir) {
  return collectors::read_library_api_logs(logs_dir);
}

std::vector<std::string> library_log_folders(const std::vector<std::string>& databases) {
  std::vector<std::string> out;
  for (const std::string& db : databases) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(db, ec).parent_path();
    for (int up = 0; up < 3 && !dir.empty(); ++up, dir = dir.parent_path()) {
      const std::string logs = (dir / collectors::kLibraryLogDir).string();
      if (std::filesystem::is_directory(logs, ec)) {
        if (std::find(out.begin(), out.end(), logs) == out.end()) out.push_back(logs);
        break;
      }
      if (dir == dir.root_path()) break;
    }
  }
  return out;
}

}  // namespace rpl::app
