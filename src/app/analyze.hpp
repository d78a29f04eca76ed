#pragma once
// The `analyze` application: read rocpd databases, run every analysis, and hand the results to the
// reporters. The CLI is a thin layer over this.
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_stability.hpp"
#include "analysis/api_stats.hpp"
#include "analysis/pc_hotspots.hpp"
#include "analysis/bottleneck.hpp"
#include "analysis/critical_path.hpp"
#include "analysis/deep_analysis.hpp"
#include "analysis/analysis_window.hpp"
#include "analysis/device_specs.hpp"
#include "analysis/idle_attribution.hpp"
#include "analysis/kernel_occupancy.hpp"
#include "analysis/kernel_stats.hpp"
#include "analysis/occupancy.hpp"
#include "analysis/roofline.hpp"
#include "analysis/trace_summaries.hpp"
#include "model/trace.hpp"

namespace rpl::app {

// The analysis options `analyze` and `profile` share: one struct embedded in both commands' options, its
// flags added to both by cli/analysis_flags.
struct AnalysisOptions {
  std::vector<analysis::WhatIf> what_if;
  bool lenient = false;             // drop invalid records with a warning instead of failing
  bool infer_dependencies = false;  // opt-in, labelled: cross-stream edges inferred from timing
  // --kernel REGEX: the kernel lists and the runtime cover only matching kernels (searched in the
  // display name); the critical path is still computed over all work, since it all takes time.
  std::optional<std::string> kernel_filter;
  // Roofline ceilings: the measured ones `rocm-perf ceilings` wrote (preferred over the built-in tables for
  // a matching device), and an override of the device-memory bandwidth.
  std::optional<std::string> ceilings_file;
  std::optional<double> memory_bandwidth_gbps;
  bool per_dispatch_roofline = false;  // also a roofline point per profiled dispatch
  // --range NAME: analyse the work launched inside the NVTX / ROCTx ranges of that name; without it (or
  // when the trace has no such range) the first to the last kernel (analysis/analysis_window.hpp).
  std::optional<std::string> range;
  // profile: the counter pass failed with this message; roofline.json says so instead of "no counter data".
  std::optional<std::string> counter_failure;
  // Deep analyses measured outside the trace's counters, by kernel display name: AMD's ATT run of
  // `profile --deep` (one dispatch per kernel). They reach the classifier and analysis.json like NVIDIA's.
  std::vector<std::pair<std::string, analysis::DeepAnalysis>> external_deep;
  // --api-stats (and profile's api-overhead preset): per-API-call statistics of the trace's runtime and
  // driver calls (analysis/api_stats), in profile.json, the terminal summary and report.html.
  bool api_stats = false;
};

struct AnalyzeOptions : AnalysisOptions {
  std::vector<std::string> databases;
  bool show_progress = false;       // progress on stderr (a terminal, not --quiet)
  // Keep the per-node earliest start and slack (CriticalPathResult::nodes...): 25 bytes per node that only
  // the per-node outputs need (the Perfetto exports, --slack-db).
  bool node_rows = false;
  // --slack-db FILE: the per-node rows go to a SQLite table there (app/slack_table.hpp); implies node_rows.
  std::optional<std::string> slack_db;
  // --jobs N (resolved: >= 1): databases read at once, and the independent analyses (kernel statistics, the
  // critical path with idle attribution, what-if) run side by side. Results identical to 1; memory: see
  // docs/analyze-scaling.md ("--jobs").
  unsigned jobs = 1;
};

// What the counters say about one kernel (parallel to KernelStatsResult::kernels).
struct KernelDiagnosis {
  int roofline = -1;                           // into RooflineResult::kernels; -1: no counter data
  std::optional<analysis::DeepAnalysis> deep;  // when the trace holds the deep-analysis metrics
  analysis::BottleneckResult bottleneck;
};

struct AnalyzeResults {
  std::vector<std::string> inputs;
  Trace trace;
  analysis::AnalysisWindow window;  // what the analyses below measured (the trace is restricted to it)
  analysis::KernelStatsResult stats;
  std::vector<analysis::KernelOccupancy> occupancy;  // parallel to stats.kernels
  analysis::CriticalPathResult dag;
  analysis::IdleBreakdown idle;  // why the GPU waits on the critical path
  std::optional<std::string> counter_failure;  // AnalyzeOptions::counter_failure
  bool inferred_edges = false;
  std::vector<analysis::WhatIfResult> what_if;

  std::optional<analysis::EmpiricalCeilings> empirical_ceilings;  // from --ceilings
  analysis::RooflineResult roofline;
  std::vector<KernelDiagnosis> diagnosis;  // parallel to stats.kernels
  std::optional<analysis::ApiStatsResult> api_stats;  // AnalysisOptions::api_stats
  // NVTX / ROCTx ranges by name over the whole trace (before the window), with the GPU time of their work.
  std::vector<analysis::RangeSummary> ranges;
  // `profile --pc-sampling`: the hotspots of the PC-sampling run (app/pc_sampling.hpp), for report.html.
  std::vector<analysis::KernelHotspots> pc_hotspots;
  // `profile`: run-to-run stability and device-state warnings, for analysis.json's findings; empty for `analyze`.
  std::optional<analysis::RunToRun> run_to_run;
};

// Throws rpl::Error(Usage) naming the value for an option that cannot be right (checked before any work).
// --what-if REGEX=FACTOR specifications, parsed; rpl::Error(Usage) names a malformed one.
std::vector<analysis::WhatIf> parse_what_if_specs(const std::vector<std::string>& specs);
void check_analysis_options(const AnalysisOptions& options);
AnalyzeResults run_analyze(const AnalyzeOptions& options);

}  // namespace rpl::app
