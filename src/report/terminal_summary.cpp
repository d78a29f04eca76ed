// The default, human-readable output of `analyze`: findings first, then the numbers behind them, in tables
// that fit the terminal's width (the kernel name last, taking what the numbers leave).
#include <fmt/format.h>

#include <algorithm>

#include "analysis/run_stability.hpp"
#include "report/analyze_report.hpp"
#include "report/api_stats_report.hpp"
#include "report/att_report.hpp"
#include "report/idle_report.hpp"
#include "report/kernel_shapes_report.hpp"
#include "report/summaries_report.hpp"
#include "report/text_table.hpp"
#include "report/vendor_terms.hpp"
#include "support/terminal_text.hpp"
#include "report/units.hpp"

namespace rpl::report {
namespace {

std::string ms_text(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

constexpr std::size_t kShapesShown = 3;
constexpr std::size_t kAttKernelsShown = 3;  // kernels with thread-trace data, and rows of each of their tables
constexpr std::size_t kAttRowsShown = 5;
constexpr std::size_t kMinNameWidth = 30;     // below this, templated names lose what tells them apart
constexpr std::size_t kWantedNameWidth = 44;  // columns give way until a name has this much
constexpr std::size_t kSlackIndent = 4;       // the deepest indent of a table that shows kernel names

// "; 4 duration classes (14.6, 35.2, 45.0, 85.9 us), CV 0.012 within a class" when the shape has several.
std::string classes_text(const analysis::LaunchShape& s) {
  if (s.class_medians_ns.size() < 2) return "";
  std::string medians;
  for (double m : s.class_medians_ns) medians += fmt::format("{}{:.1f}", medians.empty() ? "" : ", ", m / 1e3);
  return fmt::format("; {} duration classes ({} us), CV {:.3f} within a class", s.class_medians_ns.size(), medians,
                     s.within_class_cv);
}

// Every kernel (and copy) name the summary may print, with its mangled name where the trace has one.
std::vector<NamePair> names_in(const app::AnalyzeResults& r, const std::vector<analysis::KernelSlack>& slack) {
  std::vector<NamePair> names;
  for (const auto& k : r.stats.kernels) names.push_back({k.name, k.mangled_name});
  for (const auto& c : r.dag.contributions) names.push_back({c.name, ""});
  for (const auto& s : slack) names.push_back({s.name, ""});
  for (const auto& w : r.what_if)
    for (const auto& k : w.matched_kernels) names.push_back({k, ""});
  return names;
}

// The top-kernels table: numbers first, the name last; the columns a narrow terminal drops go first.
TextTable kernels_text_table(const app::AnalyzeResults& r, std::size_t top) {
  std::vector<TextColumn> c = {{"calls", {}, 0},  {"total", {}, 0},     {"median", {}, 1}, {"share", {}, 0},
                               {"CV", {}, 2},     {"occ", {}, 3},       {"shapes", {}, 4}, {"stability", {}, 6},
                               {"limiter", {}, 5, true}};
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < top; ++i) {
    const auto& k = r.stats.kernels[i];
    const auto& occ = r.occupancy[i].top;
    const std::string cells[] = {std::to_string(k.durations.count),
                                 duration_text(k.durations.total_ns),
                                 duration_text(k.durations.median_ns),
                                 percent(k.share_of_gpu_time),
                                 fmt::format("{:.3f}", k.within_class_cv),
                                 occ ? fmt::format("{:.0f}%", occ->occupancy.theoretical * 100) : std::string("-"),
                                 std::to_string(k.shapes.size()),
                                 analysis::to_string(k.stability),
                                 occ ? limiter_text(occ->occupancy.limiter, occ->arch) : std::string("-")};
    for (std::size_t col = 0; col < c.size(); ++col) c[col].cells.push_back(cells[col]);
  }
  return TextTable(std::move(c), "kernel");
}

void header_section(std::string& out, const app::AnalyzeResults& r, const ReportOptions& options) {
  const auto& t = r.stats.timing;
  const std::size_t width = options.width;
  // The counts are the window's; what the window left out of the trace is said beside them.
  std::string outside;
  if (r.window.dropped_dispatches) outside = fmt::format("{} dispatch(es)", r.window.dropped_dispatches);
  if (r.window.dropped_copies)
    outside += fmt::format("{}{} cop{}", outside.empty() ? "" : " and ", r.window.dropped_copies,
                           r.window.dropped_copies == 1 ? "y" : "ies");
  out += wrap_text(fmt::format("Trace: {} process(es), {} dispatches, {} cop{}{}", t.process_count, t.dispatch_count,
                               t.copy_count, t.copy_count == 1 ? "y" : "ies",
                               outside.empty() ? std::string() : " in the window (outside it: " + outside + ")"),
                   width, 0, 2);
  out += wrap_text("Window: " + r.window.description, width, 0, 2);
  if (options.kernel_filter)
    out += wrap_text(fmt::format("Kernel filter: --kernel '{}': every number below counts only the matching kernels",
                                 one_line(*options.kernel_filter)),
                     width, 0, 2);
  out += wrap_text(fmt::format("Runtime (sum of kernel time): {}; GPU busy: {} ({:.0f}% of {} wall in the window)",
                               ms_text(t.runtime_ns), ms_text(t.gpu_busy_ns),
                               t.wall_span_ns > 0 ? 100 * t.gpu_busy_ns / t.wall_span_ns : 0.0, ms_text(t.wall_span_ns)),
                   width, 0, 2);
}

// `findings`: analysis.json's, warnings first (analysis_report.cpp).
void findings_section(std::string& out, const nlohmann::json& findings, const ReportOptions& options,
                      const KernelNames& names) {
  out += fmt::format("\nFindings ({}; evidence in analysis.json)\n", findings.size());
  if (findings.empty()) out += "  none crossed its threshold\n";
  std::size_t shown = 0;
  std::string last_remedy;  // the same remedy for consecutive findings (three cuBLAS GEMMs) is printed once
  for (const auto& f : findings) {
    if (shown++ == options.top) {
      out += fmt::format("  ... {} more (--top N to show more)\n", findings.size() - options.top);
      break;
    }
    std::string message = f.value("message", "");
    if (f["kernel"].is_string()) {  // the kernel as every table of this output names it
      const std::string kernel = f["kernel"].get<std::string>();
      if (auto at = message.find(kernel); at != std::string::npos) message.replace(at, kernel.size(), names(kernel));
    }
    out += wrap_text(fmt::format("{} {}: {}", f.value("severity", "") == "warning" ? "!" : "-",
                                 f.value("id", ""), one_line(message)),
                     options.width, 2, 6);
    const std::string remedy = f.contains("remedy") ? f["remedy"].get<std::string>() : "";
    if (!remedy.empty()) out += wrap_text(remedy == last_remedy ? "remedy: as above" : "remedy: " + remedy, options.width, 6, 8);
    last_remedy = remedy;
  }
}

void kernels_section(std::string& out, const app::AnalyzeResults& r, const ReportOptions& options,
                     TextTable& table, const KernelNames& names) {
  const std::size_t width = options.width;
  out += '\n';
  out += wrap_text(fmt::format("Top kernels by GPU time{}",
                               table.shows("CV") ? fmt::format(" (CV{}: {}, time-weighted)",
                                                               table.shows("stability") ? " and stability" : "",
                                                               analysis::to_string(
                                                                   analysis::VariationScope::WithinDurationClass))
                                                 : std::string()),
                   width, 0, 2);
  out += table.header();
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i) {
    const auto& k = r.stats.kernels[i];
    out += table.row(i, names(k.name) + (k.runtime_kernel ? " [rt]" : ""));
    if (k.shapes.size() > 1 || k.has_duration_classes) {
      out += wrap_text(fmt::format("{} shape(s); CV over all dispatches {:.3f}, within a shape {:.3f}, within a "
                                   "duration class {:.3f}",
                                   k.shapes.size(), k.durations.cv, k.within_shape_cv, k.within_class_cv),
                       width, 6, 8);
      const auto& occ = r.occupancy[i].top;
      const bool nvidia = occ && occ->arch.rfind("sm_", 0) == 0;
      for (std::size_t s = 0; s < k.shapes.size() && s < kShapesShown; ++s) {
        const auto& shape = k.shapes[s];
        out += wrap_text(fmt::format("{} x {} median, CV {:.3f}: {}{}", shape.durations.count,
                                     duration_text(shape.durations.median_ns), shape.durations.cv, shape_text(shape, nvidia),
                                     classes_text(shape)),
                         width, 8, 10);
      }
      if (k.shapes.size() > kShapesShown) out += fmt::format("        ... {} more shapes\n", k.shapes.size() - kShapesShown);
    }
  }
  if (r.stats.kernels.size() > options.top)
    out += fmt::format("  ... {} more (--top N to show more)\n", r.stats.kernels.size() - options.top);
  bool unstable_shown = false;
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i)
    unstable_shown |= r.stats.kernels[i].stability == analysis::Stability::Unstable;
  if (unstable_shown) out += wrap_text("unstable kernels: " + analysis::instability_remedy(), width, 2, 4);
}

void critical_path_section(std::string& out, const app::AnalyzeResults& r, const ReportOptions& options,
                           const std::vector<analysis::KernelSlack>& slack, const KernelNames& names,
                           std::size_t name_width) {
  const auto& dag = r.dag;
  const std::size_t width = options.width;
  out += '\n';
  out += wrap_text(fmt::format("Critical path ({} ordering; edges: {} stream, {} event, {} sync, {} barrier{}{})",
                               dag.ordering, dag.edges.stream_order, dag.edges.event_wait, dag.edges.host_sync,
                               dag.edges.barrier,
                               dag.edges.inferred ? fmt::format(", {} INFERRED", dag.edges.inferred) : std::string(),
                               dag.joins.total() ? fmt::format("; {} sync joins", dag.joins.total()) : std::string()),
                   width, 0, 2);
  out += wrap_text(fmt::format("length {} = {} busy + {} idle; {} nodes on the path; parallelism {:.2f}x",
                               ms_text(dag.critical_path_ns), ms_text(dag.critical_path_busy_ns), ms_text(dag.critical_path_idle_ns),
                               dag.path.size(), dag.parallelism),
                   width, 2, 4);
  // The path is measured from its first node; end to end (the what-if baseline) from the window's start.
  const double lead_in = dag.modeled_span_ns - dag.critical_path_ns;
  if (dag.modeled_span_ns > 0 && lead_in > 1e-3 * dag.modeled_span_ns)
    out += wrap_text(fmt::format("end to end {} = {} before the path's first node starts (nothing recorded links it "
                                 "to earlier work: the host released it) + the path's {}",
                                 ms_text(dag.modeled_span_ns), ms_text(lead_in), ms_text(dag.critical_path_ns)),
                     width, 2, 4);
  if (r.idle.idle_ns > 0) {
    out += wrap_text("idle on the path: " + idle_breakdown_text(r.idle), width, 2, 4);
    out += wrap_text(fmt::format("median gap before a node {} vs median node {}; {:.0f} launches/s on the path",
                                 duration_text(r.idle.median_gap_ns), duration_text(r.idle.median_node_ns), r.idle.launches_per_second),
                     width, 2, 4);
  }
  std::vector<TextColumn> c = {{"of path", {}, 0}, {"on path", {}, 0}, {"time", {}, 0}};
  for (std::size_t i = 0; i < dag.contributions.size() && i < options.top; ++i) {
    const auto& k = dag.contributions[i];
    c[0].cells.push_back(percent(k.fraction_of_path));
    c[1].cells.push_back(std::to_string(k.dispatches_on_path));
    c[2].cells.push_back(duration_text(k.time_on_path_ns));
  }
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < dag.contributions.size() && i < options.top; ++i) shown.push_back(names(dag.contributions[i].name));
  TextTable contributors(std::move(c), "kernel / copy");
  contributors.fit(width, name_width, longest_text(shown));
  out += contributors.header();
  for (std::size_t i = 0; i < shown.size(); ++i) out += contributors.row(i, shown[i]);
  if (slack.empty()) return;
  out += wrap_text("slack per kernel (how much later its dispatches could start without delaying the end):", width, 2, 4);
  std::vector<TextColumn> s = {{"min", {}, 0}, {"median", {}, 0}, {"on path", {}, 0}};
  for (std::size_t i = 0; i < slack.size() && i < options.top; ++i) {
    s[0].cells.push_back(duration_text(static_cast<double>(slack[i].min_slack_ns)));
    s[1].cells.push_back(duration_text(slack[i].median_slack_ns));
    s[2].cells.push_back(fmt::format("{} of {}", slack[i].on_critical_path, slack[i].dispatches));
  }
  shown.clear();
  for (std::size_t i = 0; i < slack.size() && i < options.top; ++i) shown.push_back(names(slack[i].name));
  TextTable slack_table(std::move(s), "kernel", kSlackIndent);
  slack_table.fit(width, name_width, longest_text(shown));
  out += slack_table.header();
  for (std::size_t i = 0; i < shown.size(); ++i) out += slack_table.row(i, shown[i]);
}

void what_if_section(std::string& out, const app::AnalyzeResults& r, const ReportOptions& options,
                     const KernelNames& names) {
  if (r.what_if.empty()) return;
  out += '\n';
  out += wrap_text("What if (end to end: the modelled span of the window, as in the critical path above)",
                   options.width, 0, 2);
  for (const auto& w : r.what_if) {
    std::string matched;
    for (std::size_t i = 0; i < w.matched_kernels.size() && i < 3; ++i)
      matched += (i ? ", " : "") + names(w.matched_kernels[i]);
    if (w.matched_kernels.size() > 3) matched += fmt::format(" and {} more", w.matched_kernels.size() - 3);
    out += wrap_text(fmt::format("{}: {} dispatches{}; end to end {} -> {} ({:+.3f} ms, {:.3f}x); summing kernel time "
                                 "would claim {:+.3f} ms",
                                 one_line(w.combined ? "all together (" + w.spec.pattern + ")"
                                                     : fmt::format("{}={}", w.spec.pattern, w.spec.factor)),
                                 w.matched_dispatches, matched.empty() ? "" : " of " + matched, ms_text(w.baseline_ns),
                                 ms_text(w.predicted_ns), w.delta_ns / 1e6, w.speedup, w.naive_delta_ns / 1e6),
                     options.width, 2, 4);
  }
}

}  // namespace

std::string terminal_summary(const app::AnalyzeResults& r, const nlohmann::json& findings, const ReportOptions& options) {
  const auto& slack = r.dag.kernel_slack;
  TextTable table = kernels_text_table(r, options.top);
  // The name column asks for its longest name, up to kWantedNameWidth and half the width, before the numbers
  // give way.
  std::size_t longest = kMinNameWidth;
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i)
    longest = std::max(longest, r.stats.kernels[i].name.size() + (r.stats.kernels[i].runtime_kernel ? 5 : 0));
  const std::size_t want = options.name_width ? options.name_width
                                              : std::min({longest, kWantedNameWidth, std::max(kMinNameWidth, options.width / 2)});
  // The names as shown at that width decide whether a narrow terminal stacks the table (names above numbers).
  const KernelNames probe(names_in(r, slack), options.names, want);
  std::size_t shown_longest = 0;
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i)
    shown_longest = std::max(shown_longest, probe(r.stats.kernels[i].name).size() + (r.stats.kernels[i].runtime_kernel ? 5 : 0));
  const std::size_t fitted = table.fit(options.width, want, shown_longest);
  // A stacked table gives a name the whole line; the slack table's lines start deeper.
  std::size_t name_width = options.name_width ? options.name_width : std::min(fitted, options.width - kSlackIndent);
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i)
    if (r.stats.kernels[i].runtime_kernel && !options.name_width) {  // room for " [rt]"
      name_width = std::max<std::size_t>(name_width, 17) - 5;
      break;
    }
  const KernelNames names(names_in(r, slack), options.names, name_width);

  std::string out;
  header_section(out, r, options);
  findings_section(out, findings, options, names);
  kernels_section(out, r, options, table, names);
  critical_path_section(out, r, options, slack, names, name_width);
  what_if_section(out, r, options, names);
  out += att_terminal(r, names, kAttKernelsShown, kAttRowsShown, options.width);
  out += summaries_terminal(r, options.top, options.width);
  if (r.api_stats) {
    out += '\n';
    out += api_stats_terminal(*r.api_stats, options.top, options.width);
  }
  return out;
}

}  // namespace rpl::report
