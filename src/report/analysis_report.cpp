// analysis.json: kernels ranked by end-to-end impact, what-if predictions, and findings. Each finding
// carries its evidence and the threshold it used (documented in docs/analysis.md).
#include <algorithm>
#include <unordered_map>

#include "model/kernel_origin.hpp"
#include "report/analyze_report.hpp"
#include "report/idle_report.hpp"
#include "report/kernel_origin_advice.hpp"
#include "report/kernel_shapes_report.hpp"
#include "report/roofline_report.hpp"
#include "report/summaries_report.hpp"

namespace rpl::report {
namespace {

struct Thresholds {
  static constexpr double kGpuIdleFraction = 0.20;     // idle share of wall time worth a finding
  static constexpr double kUnstableCv = 0.10;          // the seeds' "unstable" bound
  static constexpr std::size_t kMinSamplesForCv = 3;
  static constexpr double kLowOccupancy = 0.50;
  static constexpr double kSignificantShare = 0.05;    // of GPU time
  static constexpr double kOffPathShare = 0.10;        // big kernels that are not on the path
};

nlohmann::json finding(const char* id, const char* severity, std::string message, nlohmann::json evidence,
                       nlohmann::json kernel = nullptr) {
  return {{"id", id}, {"severity", severity}, {"kernel", kernel}, {"message", std::move(message)},
          {"evidence", std::move(evidence)}};
}

// Critical-path share per kernel name (0 for kernels not on the path).
class PathShares {
 public:
  explicit PathShares(const analysis::CriticalPathResult& dag) {
    for (const auto& c : dag.contributions) on_path_[c.name] = &c;
  }
  double fraction(const std::string& kernel) const {
    auto it = on_path_.find(kernel);
    return it == on_path_.end() ? 0.0 : it->second->fraction_of_path;
  }
  std::size_t dispatches_on_path(const std::string& kernel) const {
    auto it = on_path_.find(kernel);
    return it == on_path_.end() ? 0 : it->second->dispatches_on_path;
  }

 private:
  std::unordered_map<std::string, const analysis::SymbolContribution*> on_path_;
};

nlohmann::json summary_json(const app::AnalyzeResults& r) {
  const auto& timing = r.stats.timing;
  const auto& dag = r.dag;
  const analysis::KernelStats* dom =
      r.stats.dominant >= 0 ? &r.stats.kernels[static_cast<std::size_t>(r.stats.dominant)] : nullptr;
  return {{"runtime_ms", timing.runtime_ns / 1e6},
          {"wall_span_ms", timing.wall_span_ns / 1e6},
          {"gpu_busy_fraction", timing.wall_span_ns > 0 ? timing.gpu_busy_ns / timing.wall_span_ns : 0.0},
          {"critical_path_ms", dag.critical_path_ns / 1e6},
          {"critical_path_idle_ms", dag.critical_path_idle_ns / 1e6},
          {"window", window_json(r.window)},
          {"idle_breakdown", idle_json(r.idle)},
          {"dominant_kernel", dom ? nlohmann::json(dom->name) : nlohmann::json(nullptr)},
          {"kernel_count", r.stats.kernels.size()},
          {"dispatch_count", timing.dispatch_count},
          {"process_count", timing.process_count}};
}

nlohmann::json ranked_kernel_json(const app::AnalyzeResults& r, const PathShares& path, std::size_t i, std::size_t rank) {
  const auto& k = r.stats.kernels[i];
  const auto& occ = r.occupancy[i].top;
  return {{"rank", rank + 1},
          {"name", k.name},
          {"runtime_kernel", k.runtime_kernel},
          {"origin", origin_json(kernel_origin(k.name))},
          {"count", k.durations.count},
          {"total_ns", k.durations.total_ns},
          {"share_of_gpu_time", k.share_of_gpu_time},
          {"critical_path_fraction", path.fraction(k.name)},
          {"dispatches_on_path", path.dispatches_on_path(k.name)},
          {"cv", k.durations.cv},
          {"stability", analysis::to_string(k.durations.stability)},
          {"within_shape_cv", k.within_shape_cv},
          {"within_shape_stability", analysis::to_string(k.within_shape_stability)},
          {"within_class_cv", k.within_class_cv},
          {"within_class_stability", analysis::to_string(k.stability)},
          {"shape_count", k.shapes.size()},
          {"shapes", shapes_json(k, 5)},
          {"occupancy", occ ? nlohmann::json(occ->occupancy.theoretical) : nlohmann::json(nullptr)},
          {"occupancy_limiter", occ ? nlohmann::json(occ->occupancy.limiter) : nlohmann::json(nullptr)},
          {"roofline", kernel_roofline_summary(r, i)},
          {"bottleneck", i < r.diagnosis.size() ? analysis::to_json(r.diagnosis[i].bottleneck) : nlohmann::json(nullptr)},
          {"deep_analysis", i < r.diagnosis.size() && r.diagnosis[i].deep ? analysis::to_json(*r.diagnosis[i].deep)
                                                                          : nlohmann::json(nullptr)}};
}

// The top kernels by critical-path contribution first (what speeding a kernel up is worth end to end), then
// by total time.
nlohmann::json ranking_json(const app::AnalyzeResults& r, const PathShares& path, std::size_t top) {
  std::vector<std::size_t> order(r.stats.kernels.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    double fa = path.fraction(r.stats.kernels[a].name), fb = path.fraction(r.stats.kernels[b].name);
    if (fa != fb) return fa > fb;
    return r.stats.kernels[a].durations.total_ns > r.stats.kernels[b].durations.total_ns;
  });
  nlohmann::json ranked = nlohmann::json::array();
  for (std::size_t rank = 0; rank < order.size() && rank < top; ++rank)
    ranked.push_back(ranked_kernel_json(r, path, order[rank], rank));
  return {{"by", "critical_path_fraction, then total_ns"}, {"kernels", ranked}};
}

void add_gpu_idle_finding(const app::AnalyzeResults& r, nlohmann::json& findings) {
  const auto& timing = r.stats.timing;
  if (timing.wall_span_ns <= 0) return;
  double idle = 1.0 - timing.gpu_busy_ns / timing.wall_span_ns;
  if (idle > Thresholds::kGpuIdleFraction)
    findings.push_back(finding(
        "gpu_idle", "warning",
        fmt::format("the GPU is idle {:.0f}% of the traced wall time: launch overhead, host work or "
                    "synchronisation sits between kernels",
                    idle * 100),
        {{"idle_fraction", idle}, {"threshold", Thresholds::kGpuIdleFraction},
         {"gpu_busy_ns", timing.gpu_busy_ns}, {"wall_span_ns", timing.wall_span_ns}}));
}

// Unstable timings, low occupancy, big kernels off the critical path.
void add_kernel_findings(const app::AnalyzeResults& r, const PathShares& path, nlohmann::json& findings) {
  for (std::size_t i = 0; i < r.stats.kernels.size(); ++i) {
    const auto& k = r.stats.kernels[i];
    // A trace holds one run: the variation it can show is between dispatches, within a shape or between
    // shapes (run-to-run variation is `profile`'s statistics across runs).
    if (k.durations.count >= Thresholds::kMinSamplesForCv && k.within_class_cv > Thresholds::kUnstableCv &&
        k.share_of_gpu_time >= Thresholds::kSignificantShare)
      findings.push_back(finding("unstable_kernel", "warning",
                                 fmt::format("{}: dispatches of the same launch shape and duration class vary (CV "
                                             "{:.3f} {}, time-weighted over its {} shape(s)): its timings are not "
                                             "reliable for comparisons; {}",
                                             k.name, k.within_class_cv,
                                             analysis::to_string(analysis::VariationScope::WithinDurationClass),
                                             k.shapes.size(), analysis::instability_remedy()),
                                 {{"cv", k.within_class_cv}, {"variation", "within_duration_class"},
                                  {"within_shape_cv", k.within_shape_cv}, {"threshold", Thresholds::kUnstableCv},
                                  {"count", k.durations.count}, {"shape_count", k.shapes.size()}},
                                 k.name));
    else if (k.durations.count >= Thresholds::kMinSamplesForCv && k.durations.cv > Thresholds::kUnstableCv &&
             (k.shapes.size() > 1 || k.has_duration_classes) && k.share_of_gpu_time >= Thresholds::kSignificantShare)
      findings.push_back(finding("shape_mix", "info",
                                 fmt::format("{} ran with {} launch shape(s){}: its spread (CV {:.3f} over all "
                                             "dispatches) is between problem sizes, not noise; within a shape and "
                                             "duration class it is {} (CV {:.3f})",
                                             k.name, k.shapes.size(),
                                             k.has_duration_classes ? " and several repeating durations per shape "
                                                                      "(sizes the grid does not show, e.g. a GEMM's K)"
                                                                    : "",
                                             k.durations.cv, analysis::to_string(k.stability), k.within_class_cv),
                                 {{"cv", k.durations.cv}, {"variation", "between_shapes"},
                                  {"within_shape_cv", k.within_shape_cv}, {"within_class_cv", k.within_class_cv},
                                  {"shape_count", k.shapes.size()}, {"threshold", Thresholds::kUnstableCv}},
                                 k.name));
    const auto& occ = r.occupancy[i].top;
    // A vendor library's low occupancy is its design (large register and shared-memory tiles for tensor-core
    // throughput, as cuBLAS's GEMMs), and its code cannot be edited: the ranking shows the figure, no finding.
    if (occ && occ->occupancy.theoretical < Thresholds::kLowOccupancy &&
        k.share_of_gpu_time >= Thresholds::kSignificantShare &&
        kernel_origin(k.name).kind != KernelOriginKind::VendorLibrary)
      findings.push_back(finding("low_occupancy", "info",
                                 fmt::format("{} can keep only {:.0f}% of the waves resident, limited by {}",
                                             k.name, occ->occupancy.theoretical * 100, occ->occupancy.limiter),
                                 {{"theoretical_occupancy", occ->occupancy.theoretical},
                                  {"limiter", occ->occupancy.limiter},
                                  {"threshold", Thresholds::kLowOccupancy}},
                                 k.name));
    if (!k.runtime_kernel && k.share_of_gpu_time >= Thresholds::kOffPathShare && path.fraction(k.name) == 0.0)
      findings.push_back(finding("off_critical_path", "info",
                                 fmt::format("{} takes {:.0f}% of GPU time but is not on the critical path: "
                                             "speeding it up will not shorten the run",
                                             k.name, k.share_of_gpu_time * 100),
                                 {{"share_of_gpu_time", k.share_of_gpu_time}, {"threshold", Thresholds::kOffPathShare},
                                  {"critical_path_fraction", 0.0}},
                                 k.name));
  }
}

void add_inferred_edges_finding(const app::AnalyzeResults& r, nlohmann::json& findings) {
  if (r.inferred_edges && r.dag.edges.inferred > 0)
    findings.push_back(finding("inferred_dependencies", "warning",
                               fmt::format("{} cross-stream edges were inferred from timing (opt-in), not "
                                           "recorded: the critical path may follow dependencies that do not exist",
                                           r.dag.edges.inferred),
                               {{"inferred_edges", r.dag.edges.inferred}}));
}

void add_bottleneck_findings(const app::AnalyzeResults& r, nlohmann::json& findings) {
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < r.diagnosis.size(); ++i) {
    const auto& k = r.stats.kernels[i];
    const auto& primary = r.diagnosis[i].bottleneck.primary;
    if (!primary || k.share_of_gpu_time < Thresholds::kSignificantShare) continue;
    const auto& secondary = r.diagnosis[i].bottleneck.secondary;
    findings.push_back(finding(
        "bottleneck", "info",
        fmt::format("{} is {} (rule {}){}", k.name, primary->label, primary->rule,
                    secondary ? fmt::format(", then {} (rule {})", secondary->label, secondary->rule) : ""),
        {{"primary", primary->label}, {"rule", primary->rule}, {"secondary", secondary ? nlohmann::json(secondary->label) : nlohmann::json(nullptr)},
         {"share_of_gpu_time", k.share_of_gpu_time}, {"threshold", Thresholds::kSignificantShare}},
        k.name));
  }
}

// profile: the runtime or a kernel's time varied between runs beyond "moderate" (CV > 0.10 over 3+ runs), and
// what the device monitor saw that makes timings irreproducible.
void add_run_to_run_findings(const app::AnalyzeResults& r, nlohmann::json& findings) {
  if (!r.run_to_run) return;
  const auto& rr = *r.run_to_run;
  if (rr.unstable()) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : rr.unstable_kernels)
      kernels.push_back({{"name", k.name}, {"cv", k.total_per_run.cv}, {"mean_ns", k.total_per_run.mean_ns}});
    std::string what = rr.runtime.stability == analysis::Stability::Unstable
                           ? fmt::format("the runtime varies between runs (CV {:.3f} over {} runs)", rr.runtime.cv, rr.runs)
                           : fmt::format("{} kernel(s) vary between runs (the most: {}, CV {:.3f} over {} runs)",
                                         rr.unstable_kernels.size(), rr.unstable_kernels.front().name,
                                         rr.unstable_kernels.front().total_per_run.cv, rr.runs);
    findings.push_back(finding("run_to_run_instability", "warning",
                               fmt::format("{}: comparisons between runs are not reliable; {}", what,
                                           analysis::instability_remedy()),
                               {{"runs", rr.runs}, {"runtime_cv", rr.runtime.cv},
                                {"threshold", Thresholds::kUnstableCv}, {"min_runs", analysis::kMinRunsForStability},
                                {"unstable_kernels", kernels}, {"device_warnings", rr.warnings}}));
  }
  for (const auto& w : rr.warnings)
    findings.push_back(finding("reproducibility", "warning", w + " (docs/reproducibility.md)",
                               {{"clock_spread_threshold", analysis::kClockSpreadWarning},
                                {"busy_before_run_threshold_pct", analysis::kBusyBeforeRunPct}}));
}

// What to try, per finding: the label's remedy for bottlenecks, the limiter's for occupancy.
std::string remedy_for(const nlohmann::json& f) {
  const std::string id = f.value("id", "");
  const nlohmann::json& e = f["evidence"];
  if (id == "gpu_idle")
    return "read the critical path's idle breakdown below: capture the step in a CUDA / HIP graph, remove per-step "
           "host synchronisation, overlap host work with GPU work";
  if (id == "unstable_kernel" || id == "run_to_run_instability") return analysis::instability_remedy();
  if (id == "shape_mix") return "compare it per launch shape (profile.json's shapes), not over all its dispatches";
  if (id == "low_occupancy") {
    const std::string limiter = e.value("limiter", "");
    if (limiter.find("gpr") != std::string::npos || limiter.find("register") != std::string::npos)
      return "use fewer registers per thread (launch bounds, fewer live values) so that more waves fit";
    if (limiter.find("lds") != std::string::npos || limiter.find("shared") != std::string::npos)
      return "use less LDS / shared memory per block (smaller tiles) so that more blocks fit";
    return "launch more or larger blocks so that more waves are resident";
  }
  if (id == "off_critical_path")
    return "speed up the critical path's contributors first; this kernel can run later at no cost";
  if (id == "inferred_dependencies")
    return "record the real dependencies (events) in the trace, or compare with a run without --infer-dependencies";
  if (id == "bottleneck") {
    const std::string label = e.value("primary", "");
    using namespace analysis;
    if (label == kMemoryBandwidthBound)
      return "move fewer bytes: fuse with its neighbours, reuse data from caches or LDS, use narrower types";
    if (label == kComputeThroughputLimited)
      return "use the matrix (tensor) cores or a lower precision, and remove redundant arithmetic";
    if (label == kDivergenceLimited)
      return "make the lanes of a wave take the same branch (sort or bucket the work, hoist branches out of loops)";
    if (label == kUnderOccupied) return "launch more blocks, or use fewer registers / less LDS per block";
    if (label == kLatencyBound)
      return "more independent work per wave (unrolling, prefetching) or more resident waves to hide latency";
    if (label == kLaunchTailDominated)
      return "give each launch more work (batch or fuse small launches) so that launch cost and the last partial "
             "wave weigh less";
    return "see docs/bottleneck-rules.md for the label's evidence";
  }
  if (id == "reproducibility") return "fix the clocks and start from an idle GPU (docs/reproducibility.md)";
  return "";
}

// Warnings first, then what says why a kernel is slow before what qualifies a measurement: the terminal shows the
// first --top findings, and a trace with counters must not hide its bottlenecks behind shape notes. Within a
// kind, the kernels keep their order (GPU time).
void order_findings(nlohmann::json& findings) {
  auto rank = [](const nlohmann::json& f) {
    if (f.value("severity", "") != "info") return 0;
    static const std::unordered_map<std::string, int> kKinds = {
        {"bottleneck", 1}, {"off_critical_path", 2}, {"low_occupancy", 3}, {"shape_mix", 5}};
    auto it = kKinds.find(f.value("id", ""));
    return it == kKinds.end() ? 4 : it->second;
  };
  std::stable_sort(findings.begin(), findings.end(),
                   [&](const nlohmann::json& a, const nlohmann::json& b) { return rank(a) < rank(b); });
}

nlohmann::json findings_json(const app::AnalyzeResults& r, const PathShares& path) {
  nlohmann::json findings = nlohmann::json::array();
  add_gpu_idle_finding(r, findings);
  if (auto f = launch_bound_finding(r)) findings.push_back(std::move(*f));
  add_kernel_findings(r, path, findings);
  add_inferred_edges_finding(r, findings);
  add_bottleneck_findings(r, findings);
  add_run_to_run_findings(r, findings);
  annotate_findings_with_origin(findings);
  for (auto& f : findings)
    if (!f.contains("remedy")) f["remedy"] = remedy_for(f);
  order_findings(findings);
  return findings;
}

}  // namespace

nlohmann::json analysis_findings(const app::AnalyzeResults& r) { return findings_json(r, PathShares(r.dag)); }

nlohmann::json analysis_document(const app::AnalyzeResults& r, const ReportOptions& options) {
  const PathShares path(r.dag);
  nlohmann::json what_if = nlohmann::json::array();
  for (const auto& w : r.what_if) what_if.push_back(what_if_json(w));
  nlohmann::json doc;
  doc["schema_version"] = kAnalysisSchemaVersion;
  doc["summary"] = summary_json(r);
  doc["ranking"] = ranking_json(r, path, options.top);
  doc["what_if"] = what_if;
  doc["findings"] = findings_json(r, path);
  doc["copy_summary"] = copy_summary_json(analysis::copy_summary(r.trace));
  doc["range_summary"] = range_summary_json(r.ranges);
  doc["bottleneck_rules"] = analysis::bottleneck_rules_json();
  return doc;
}

}  // namespace rpl::report
