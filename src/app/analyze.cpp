#include "support/user_regex.hpp"
#include "app/analyze.hpp"
#include "app/ceilings_file.hpp"

#include <fmt/core.h>

#include <cmath>

#include "store/slack_table.hpp"
#include "support/errors.hpp"

#include "analysis/kernel_shapes.hpp"
#include "app/diagnose.hpp"
#include "app/load_trace.hpp"
#include "support/log.hpp"
#include "support/ordered_parallel.hpp"
#include "support/progress.hpp"

namespace rpl::app {
namespace {
// Keeps the kernels whose display name matches `pattern`; the runtime becomes their total.
void keep_matching_kernels(analysis::KernelStatsResult& stats, const std::string& pattern) {
  const UserRegex re(pattern, "--kernel");
  std::string dominant = stats.dominant >= 0 ? stats.kernels[static_cast<std::size_t>(stats.dominant)].name : "";
  std::erase_if(stats.kernels, [&](const analysis::KernelStats& k) { return !re.search(k.name); });
  if (stats.kernels.empty())
    throw Error(ExitCode::InputEmpty, fmt::format("no kernel in the trace matches --kernel '{}'", pattern));
  stats.timing.runtime_ns = 0;
  stats.dominant = -1;
  for (std::size_t i = 0; i < stats.kernels.size(); ++i) {
    stats.timing.runtime_ns += stats.kernels[i].durations.total_ns;
    if (stats.dominant < 0 && !stats.kernels[i].runtime_kernel) stats.dominant = static_cast<int>(i);
  }
}

}  // namespace

std::vector<analysis::WhatIf> parse_what_if_specs(const std::vector<std::string>& specs) {
  std::vector<analysis::WhatIf> out;
  for (const auto& spec : specs) out.push_back(analysis::parse_what_if(spec));
  return out;
}

void check_analysis_options(const AnalysisOptions& options) {
  if (options.memory_bandwidth_gbps && !(*options.memory_bandwidth_gbps > 0 && std::isfinite(*options.memory_bandwidth_gbps)))
    throw Error(ExitCode::Usage,
                fmt::format("--memory-bandwidth-gbps {} must be a positive number of GB/s", *options.memory_bandwidth_gbps));
}

AnalyzeResults run_analyze(const AnalyzeOptions& options) {
  AnalyzeResults r;
  r.inputs = options.databases;
  r.counter_failure = options.counter_failure;
  // Options that can be wrong are checked before a possibly long read.
  check_analysis_options(options);
  if (options.ceilings_file) r.empirical_ceilings = read_empirical_ceilings(*options.ceilings_file);
  if (options.slack_db) store::check_slack_table_path(*options.slack_db);

  r.trace = load_trace({options.databases, options.lenient, options.show_progress, options.jobs});
  Progress progress(options.show_progress);
  // One line per step, so that a long run (issue 32: minutes at 100M dispatches) says where it is.
  progress.phase("analysing: the window");

  // Every API call of the trace, whatever the analysis window (the window restricts GPU work only).
  if (options.api_stats) r.api_stats = analysis::compute_api_stats(r.trace);
  r.ranges = analysis::range_summary(r.trace);  // the window would drop the work of the other ranges
  r.window = analysis::restrict_to_window(r.trace, options.range);
  if (options.range && r.window.source != analysis::WindowSource::Range) log::warn("--range: {}", r.window.description);
  const std::size_t work = r.trace.dispatches.size() + r.trace.copies.size();  // in the window
  analysis::DagOptions dag;
  dag.infer_cross_stream = options.infer_dependencies;
  dag.node_rows = options.node_rows || options.slack_db;
  r.inferred_edges = options.infer_dependencies;
  // Three chains of pure functions over the same trace, each writing its own part of r: the kernel statistics
  // (with occupancy and the counters' diagnosis), the critical path with the idle attribution, the what-if
  // scenarios.
  auto kernel_statistics = [&] {
    r.stats = analysis::compute_kernel_stats(r.trace);
    if (options.kernel_filter) keep_matching_kernels(r.stats, *options.kernel_filter);
    analysis::compute_kernel_shapes(r.trace, r.stats);
    r.occupancy = analysis::kernel_occupancies(r.trace, r.stats);
    diagnose_kernels(r, options);
  };
  auto critical_path = [&] { r.dag = analysis::analyze_critical_path(r.trace, dag); };
  auto idle_attribution = [&] { r.idle = analysis::attribute_idle(r.trace, r.dag); };
  auto what_if = [&] {
    if (!options.what_if.empty()) r.what_if = analysis::run_what_if(r.trace, options.what_if, dag);
  };
  if (options.jobs > 1) {
    progress.phase(fmt::format("analysing {} dispatches and copies: kernel statistics, critical path, idle "
                               "attribution{}, {} at a time",
                               work, options.what_if.empty() ? "" : ", what-if", std::min(options.jobs, 3u)));
    // With --debug, each chain's CPU time on its thread: the longest is what the step takes on free cores.
    auto timed = [](const char* name, auto chain) {
      return [name, chain] {
        const double cpu = thread_cpu_seconds();
        chain();
        log::debug("{}: {:.3f} s CPU on its thread", name, thread_cpu_seconds() - cpu);
      };
    };
    run_concurrently({timed("kernel statistics", kernel_statistics),
                      timed("critical path and idle attribution", [&] { critical_path(), idle_attribution(); }),
                      timed("what-if", what_if)},
                     options.jobs);
  } else {
    progress.phase(fmt::format("analysing {} dispatches and copies: kernel statistics", work));
    kernel_statistics();
    progress.phase(fmt::format("analysing {} dispatches and copies: critical path", work));
    critical_path();
    progress.phase("analysing: idle attribution");
    idle_attribution();
    if (!options.what_if.empty()) {
      progress.phase(fmt::format("analysing: {} what-if scenario(s)", options.what_if.size()));
      what_if();
    }
  }
  progress.done();
  return r;
}

}  // namespace rpl::app
