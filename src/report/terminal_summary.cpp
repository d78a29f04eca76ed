// The default, human-readable output of `analyze`.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/kernel_slack.hpp"
#include "analysis/run_stability.hpp"
#include "report/analyze_report.hpp"
#include "report/api_stats_report.hpp"
#include "report/idle_report.hpp"
#include "report/kernel_shapes_report.hpp"
#include "report/vendor_terms.hpp"

namespace rpl::report {
namespace {

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

std::string us(double ns) {
  if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

std::string shorten(const std::string& name, std::size_t width) {
  if (name.size() <= width) return name;
  return name.substr(0, width - 3) + "...";
}

template <typename... Args>
void put(fmt::memory_buffer& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
  out.push_back('\n');
}

constexpr std::size_t kShapesShown = 3;

// "; 4 duration classes (14.6, 35.2, 45.0, 85.9 us), CV 0.012 within a class" when the shape has several.
std::string classes_text(const analysis::LaunchShape& s) {
  if (s.class_medians_ns.size() < 2) return "";
  std::string medians;
  for (double m : s.class_medians_ns) medians += fmt::format("{}{:.1f}", medians.empty() ? "" : ", ", m / 1e3);
  return fmt::format("; {} duration classes ({} us), CV {:.3f} within a class", s.class_medians_ns.size(), medians,
                     s.within_class_cv);
}

}  // namespace

std::string terminal_summary(const app::AnalyzeResults& r, const ReportOptions& options) {
  const auto& t = r.stats.timing;
  const auto& dag = r.dag;
  fmt::memory_buffer out;

  put(out, "Trace: {} process(es), {} dispatches, {} copies", t.process_count, t.dispatch_count, t.copy_count);
  put(out, "Window: {}", r.window.description);
  put(out, "Runtime (sum of kernel time): {}   GPU busy: {} ({:.0f}% of {} wall in the window)", ms(t.runtime_ns),
       ms(t.gpu_busy_ns), t.wall_span_ns > 0 ? 100 * t.gpu_busy_ns / t.wall_span_ns : 0.0, ms(t.wall_span_ns));
  out.push_back('\n');

  const std::size_t name_width = 44;
  put(out, "Top kernels by GPU time (stability and CV: {}, time-weighted)",
       analysis::to_string(analysis::VariationScope::WithinDurationClass));
  put(out, "  {:<{}} {:>7} {:>6} {:>10} {:>10} {:>6} {:>9} {:>7} {:>6}  {}", "kernel", name_width, "calls", "shapes",
       "total", "median", "share", "stability", "CV", "occ", "limiter");
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i) {
    const auto& k = r.stats.kernels[i];
    const auto& occ = r.occupancy[i].top;
    std::string name = shorten(k.name, name_width - (k.runtime_kernel ? 4 : 0)) + (k.runtime_kernel ? " [rt]" : "");
    put(out, "  {:<{}} {:>7} {:>6} {:>10} {:>10} {:>5.1f}% {:>9} {:>7.3f} {:>6}  {}", name, name_width,
         k.durations.count, k.shapes.size(), us(k.durations.total_ns), us(k.durations.median_ns),
         100 * k.share_of_gpu_time, analysis::to_string(k.stability), k.within_class_cv,
         occ ? fmt::format("{:.0f}%", occ->occupancy.theoretical * 100) : std::string("-"),
         occ ? limiter_text(occ->occupancy.limiter, occ->arch) : std::string("-"));
    if (k.shapes.size() > 1 || k.has_duration_classes) {
      put(out, "      {} shape(s); CV over all dispatches {:.3f}, within a shape {:.3f}, within a duration class {:.3f}",
           k.shapes.size(), k.durations.cv, k.within_shape_cv, k.within_class_cv);
      const bool nvidia = occ && occ->arch.rfind("sm_", 0) == 0;
      for (std::size_t s = 0; s < k.shapes.size() && s < kShapesShown; ++s) {
        const auto& shape = k.shapes[s];
        put(out, "      {:>5} x {:>10} median, CV {:.3f}: {}{}", shape.durations.count, us(shape.durations.median_ns),
             shape.durations.cv, shape_text(shape, nvidia), classes_text(shape));
      }
      if (k.shapes.size() > kShapesShown) put(out, "      ... {} more shapes", k.shapes.size() - kShapesShown);
    }
  }
  if (r.stats.kernels.size() > options.top)
    put(out, "  ... {} more (--top N to show more)", r.stats.kernels.size() - options.top);
  bool unstable_shown = false;
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i)
    unstable_shown |= r.stats.kernels[i].stability == analysis::Stability::Unstable;
  if (unstable_shown) put(out, "  unstable kernels: {}", analysis::instability_remedy());
  out.push_back('\n');

  put(out, "Critical path ({} ordering; edges: {} stream, {} event, {} sync, {} barrier{}{})", dag.ordering,
       dag.edges.stream_order, dag.edges.event_wait, dag.edges.host_sync, dag.edges.barrier,
       dag.edges.inferred ? fmt::format(", {} INFERRED", dag.edges.inferred) : std::string(),
       dag.joins.total() ? fmt::format("; {} sync joins", dag.joins.total()) : std::string());
  put(out, "  length {} = {} busy + {} idle; {} nodes on the path", ms(dag.critical_path_ns),
       ms(dag.critical_path_busy_ns), ms(dag.critical_path_idle_ns), dag.path.size());
  put(out, "  parallelism {:.2f}x", dag.parallelism);
  if (r.idle.idle_ns > 0) {
    put(out, "  idle on the path: {}", idle_breakdown_text(r.idle));
    put(out, "  median gap before a node {} vs median node {}; {:.0f} launches/s on the path", us(r.idle.median_gap_ns),
         us(r.idle.median_node_ns), r.idle.launches_per_second);
  }
  if (auto f = launch_bound_finding(r)) put(out, "  {}", (*f)["message"].get<std::string>());
  for (std::size_t i = 0; i < dag.contributions.size() && i < options.top; ++i) {
    const auto& c = dag.contributions[i];
    put(out, "  {:>5.1f}%  {:<{}} ({} on path, {})", 100 * c.fraction_of_path, shorten(c.name, name_width), name_width,
         c.dispatches_on_path, us(c.time_on_path_ns));
  }
  const auto slack = analysis::kernel_slack(r.trace, dag);
  if (!slack.empty()) {
    put(out, "  slack per kernel (how much later its dispatches could start without delaying the end):");
    put(out, "    {:<{}} {:>10} {:>10} {:>12}", "kernel", name_width, "min", "median", "on path");
    for (std::size_t i = 0; i < slack.size() && i < options.top; ++i) {
      const auto& k = slack[i];
      put(out, "    {:<{}} {:>10} {:>10} {:>5} of {:<5}", shorten(k.name, name_width), name_width,
           us(static_cast<double>(k.min_slack_ns)), us(k.median_slack_ns), k.on_critical_path, k.dispatches);
    }
  }

  if (!r.what_if.empty()) {
    out.push_back('\n');
    put(out, "What if");
    for (const auto& w : r.what_if)
      put(out, "  {}: {} dispatches; end to end {} -> {} ({:+.3f} ms, {:.3f}x); summing kernel time would "
           "claim {:+.3f} ms",
           w.combined ? "all together (" + w.spec.pattern + ")" : fmt::format("{}={}", w.spec.pattern, w.spec.factor),
           w.matched_dispatches, ms(w.baseline_ns), ms(w.predicted_ns),
           w.delta_ns / 1e6, w.speedup, w.naive_delta_ns / 1e6);
  }
  if (r.api_stats) {
    out.push_back('\n');
    const std::string table = api_stats_terminal(*r.api_stats, options.top);
    out.append(table.data(), table.data() + table.size());
  }
  return fmt::to_string(out);
}

}  // namespace rpl::report
