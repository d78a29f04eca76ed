#pragma once
// Reporters for `rocm-perf analyze`: profile.json, dag.json, analysis.json (each versioned, each with a
// JSON Schema under schemas/), the combined --json document, and the terminal summary.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "app/analyze.hpp"
#include "app/profile.hpp"
#include "report/json_stream.hpp"
#include "report/kernel_names.hpp"

namespace rpl::report {

inline constexpr const char* kSchemaVersion = "1.0";
// analysis.json 1.1 added each ranked kernel's roofline summary and bottleneck labels, the "bottleneck"
// finding and the rule table.
// 1.3: the analysis window, the idle breakdown of the critical path and the launch_bound finding; launch
// shapes per kernel and the within-shape CV (unstable_kernel now measures it; shape_mix is new);
// overlap_potential_ms removed (it counted start-up and host idle time as if overlap could remove it).
// 1.4: every finding has a remedy (what to try), which the terminal summary prints under it.
// 1.5: copy_summary (memory copies in the window by kind: count, bytes, time, bandwidth) and range_summary
// (NVTX / ROCTx ranges by name: count and host time).
// 1.6: range_summary gives each range's GPU time: the kernels and copies launched inside it (gpu_kernels,
// gpu_copies, gpu_busy_ns, gpu_span_ns), found through the launching call's correlation id.
inline constexpr const char* kAnalysisSchemaVersion = "1.7";
// dag.json 1.1 (issue 32): the per-node rows ("nodes": earliest start and slack of every dispatch and copy)
// left dag.json; `--slack-db FILE` writes them to a SQLite table instead (docs/critical-path.md). Every other
// field is unchanged.
inline constexpr const char* kDagSchemaVersion = "1.1";

struct ReportOptions {
  std::size_t top = 10;  // kernels in the terminal summary and in analysis.json's ranking
  bool html = true;      // also write report.html
  // The terminal summary: kernel names' form, their width (0: what `width` leaves beside the numbers) and the
  // terminal's width; the --kernel filter, stated beside the numbers it restricts.
  NameForm names = NameForm::Short;
  std::size_t name_width = 0;
  std::size_t width = 80;
  std::optional<std::string> kernel_filter;
};

nlohmann::json profile_document(const app::AnalyzeResults& r);
// analysis.json. A command builds it once and hands it to every output that shows part of it (analysis.json,
// --json's "analysis", the terminal's and report.html's findings).
nlohmann::json analysis_document(const app::AnalyzeResults& r, const ReportOptions& options);
// The document's "findings" alone (warnings first), for a caller that has no document.
nlohmann::json analysis_findings(const app::AnalyzeResults& r);
void write_dag_document(JsonStream& out, const app::AnalyzeResults& r);
// {"schema_version", "profile", "dag", "analysis"}: what --json prints. `r` null: timing-only (dag and
// analysis are null). `analysis`: analysis_document(*r, ...), null when `r` is.
void write_combined_document(JsonStream& out, const nlohmann::json& profile, const app::AnalyzeResults* r,
                             const nlohmann::json& analysis);

// `findings`: the analysis document's "findings" (analysis_document), printed first.
std::string terminal_summary(const app::AnalyzeResults& r, const nlohmann::json& findings, const ReportOptions& options);

// Writes profile.json, dag.json, analysis.json, roofline.json and (options.html) report.html into `dir`
// (created if needed). Each file is written to
// a temporary name and renamed, so an interrupted run never leaves a half-written output.
// `r` null: timing-only, only profile.json is written. `analysis`: analysis_document(*r, options), written as
// analysis.json and the source of report.html's findings; null when `r` is.
void write_output_files(const std::string& dir, const nlohmann::json& profile, const app::AnalyzeResults* r,
                        const nlohmann::json& analysis, const ReportOptions& options);

nlohmann::json what_if_json(const analysis::WhatIfResult& w);
// A duration distribution as profile.json writes it (count, total, mean, median, min, max, stddev, cv,
// stability); profile.json and `profile`'s statistics across runs share it.
nlohmann::json durations_json(const analysis::DurationStats& d);

// profile.json for `profile`: the representative run's profile plus the statistics across runs, or the
// timing-only document.
nlohmann::json profile_command_document(const app::ProfileResults& p);
// `analysis`: analysis_document(*p.analysis, options), null when p.analysis is.
std::string profile_terminal_summary(const app::ProfileResults& p, const nlohmann::json& analysis,
                                     const ReportOptions& options);

}  // namespace rpl::report
