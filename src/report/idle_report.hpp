#pragma once
// The analysis window, the idle-time breakdown of the critical path and the launch_bound finding, as
// JSON and as terminal lines (analysis.json, dag.json, the terminal summary and report.html share them).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/analyze.hpp"

namespace rpl::report {

// The finding fires when at least this share of the critical path is idle ...
inline constexpr double kLaunchBoundIdleFraction = 0.5;
// ... and the median gap before a node of the path is at least this multiple of the median node duration.
inline constexpr double kLaunchBoundGapPerNode = 1.0;

nlohmann::json window_json(const analysis::AnalysisWindow& w);
nlohmann::json idle_json(const analysis::IdleBreakdown& idle);
// The launch_bound finding (analysis.json "findings" entry), or nullopt when the run is not launch bound.
std::optional<nlohmann::json> launch_bound_finding(const app::AnalyzeResults& r);
// "launch latency 1.2 ms (40%), host synchronisation ..." for the terminal and HTML.
std::string idle_breakdown_text(const analysis::IdleBreakdown& idle);

}  // namespace rpl::report
