#include "app/compare.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "analysis/analysis_window.hpp"
#include "analysis/critical_path.hpp"
#include "analysis/kernel_stats.hpp"
#include "app/analyze.hpp"
#include "app/load_trace.hpp"
#include "app/multi_rank.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

// run-K directories in K order (run-10 after run-9).
std::vector<fs::path> profile_run_dirs(const fs::path& dir) {
  std::vector<std::pair<long, fs::path>> runs;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir / "runs", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_directory() || name.rfind("run-", 0) != 0) continue;
    char* end = nullptr;
    const long k = std::strtol(name.c_str() + 4, &end, 10);
    if (end && *end == '\0') runs.emplace_back(k, it->path());
  }
  std::sort(runs.begin(), runs.end());
  std::vector<fs::path> out;
  for (auto& [k, p] : runs) out.push_back(p);
  return out;
}

std::vector<std::string> gpu_devices(const Trace& trace) {
  std::set<std::string> names;
  for (const Agent& a : trace.agents)
    if (a.is_gpu) names.insert(!a.product_name.empty() ? a.product_name : a.name);
  return {names.begin(), names.end()};
}

// Kernel time per kernel and the critical path of one run in the window analyze uses: what the spread between
// runs is taken from.
struct RunDigest {
  analysis::KernelStatsResult stats;
  double critical_path_ns = 0;
};
RunDigest run_digest(const std::vector<std::string>& databases, const CompareOptions& o) {
  Trace trace = load_trace({databases, o.lenient, false});
  analysis::restrict_to_window(trace, o.range);
  RunDigest d;
  d.stats = analysis::compute_kernel_stats(trace);
  d.critical_path_ns = analysis::analyze_critical_path(trace).critical_path_ns;
  return d;
}

analysis::CompareSide read_side(const std::string& path, const CompareOptions& o) {
  analysis::CompareSide side;
  side.label = path;
  const auto runs = compare_input_runs(path);
  std::size_t representative = 0;
  if (runs.size() >= 2) {
    std::vector<std::pair<double, std::size_t>> by_runtime;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      log::info("{}: run {}/{}: kernel time and critical path", path, i + 1, runs.size());
      const RunDigest digest = run_digest(runs[i], o);
      const analysis::KernelStatsResult& stats = digest.stats;
      side.runtime_per_run_ns.push_back(stats.timing.runtime_ns);
      side.critical_path_per_run_ns.push_back(digest.critical_path_ns);
      for (const auto& k : stats.kernels) {
        auto& per_run = side.kernel_time_per_run_ns[k.name];
        per_run.resize(runs.size(), 0.0);
        per_run[i] = k.durations.total_ns;
      }
      by_runtime.emplace_back(stats.timing.runtime_ns, i);
    }
    std::sort(by_runtime.begin(), by_runtime.end());
    representative = by_runtime[(by_runtime.size() - 1) / 2].second;  // the median run, as profile chooses
  }
  AnalyzeOptions ao;
  ao.databases = runs[representative];
  ao.range = o.range;
  ao.lenient = o.lenient;
  ao.ceilings_file = o.ceilings_file;
  ao.show_progress = o.show_progress;
  AnalyzeResults r = run_analyze(ao);
  if (runs.size() < 2) {
    side.runtime_per_run_ns = {r.stats.timing.runtime_ns};
    for (const auto& k : r.stats.kernels) side.kernel_time_per_run_ns[k.name] = {k.durations.total_ns};
  }
  if (o.range && r.window.source != analysis::WindowSource::Range) log::warn("{}: --range: {}", path, r.window.description);
  side.stats = std::move(r.stats);
  side.critical_path_ns = r.dag.critical_path_ns;
  if (runs.size() < 2) side.critical_path_per_run_ns = {r.dag.critical_path_ns};
  side.wall_span_ns = r.dag.wall_span_ns;
  side.path_contributions = std::move(r.dag.contributions);
  side.ranges = std::move(r.ranges);
  // Kernels with a point: FLOPs or bytes at any memory level were counted (an integer kernel whose data stays in
  // L2 has a point by its L2 bandwidth).
  for (auto& k : r.roofline.kernels) {
    bool measured = k.point.total_gflops.has_value();
    for (const auto& gbps : k.point.gbps) measured = measured || gbps.has_value();
    if (measured) side.roofline.push_back(std::move(k));
  }
  side.devices = gpu_devices(r.trace);
  return side;
}

}  // namespace

std::vector<std::vector<std::string>> compare_input_runs(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error(ExitCode::InputMissing, fmt::format("{}: no such file or directory", path));
  if (!fs::is_directory(path, ec)) return {{path}};
  std::vector<std::vector<std::string>> out;
  for (const fs::path& run : profile_run_dirs(path)) out.push_back(rank_databases({run.string()}));
  if (out.empty()) out.push_back(rank_databases({path}));  // names the directory when it holds no database
  return out;
}

analysis::CompareResult run_compare(const CompareOptions& o) {
  auto side = [&](const std::string& path, const char* which) {
    try {
      return read_side(path, o);
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", which, e.what()));
    }
  };
  const analysis::CompareSide a = side(o.a, "A");
  const analysis::CompareSide b = side(o.b, "B");
  return analysis::compare_runs(a, b);
}

}  // namespace rpl::app
