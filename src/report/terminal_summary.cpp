// The default, human-readable output of `analyze`.
#include <fmt/format.h>

#include <algorithm>

#include "report/analyze_report.hpp"

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

}  // namespace

std::string terminal_summary(const app::AnalyzeResults& r, const ReportOptions& options) {
  const auto& t = r.stats.timing;
  const auto& dag = r.dag;
  fmt::memory_buffer out;

  put(out, "Trace: {} process(es), {} dispatches, {} copies", t.process_count, t.dispatch_count, t.copy_count);
  put(out, "Runtime (sum of kernel time): {}   GPU busy: {} ({:.0f}% of {} wall)", ms(t.runtime_ns),
       ms(t.gpu_busy_ns), t.wall_span_ns > 0 ? 100 * t.gpu_busy_ns / t.wall_span_ns : 0.0, ms(t.wall_span_ns));
  out.push_back('\n');

  const std::size_t name_width = 44;
  put(out, "Top kernels by GPU time");
  put(out, "  {:<{}} {:>7} {:>10} {:>10} {:>6} {:>9} {:>7} {:>6}  {}", "kernel", name_width, "calls", "total",
       "median", "share", "stability", "CV", "occ", "limiter");
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < options.top; ++i) {
    const auto& k = r.stats.kernels[i];
    const auto& occ = r.occupancy[i].top;
    std::string name = shorten(k.name, name_width - (k.runtime_kernel ? 4 : 0)) + (k.runtime_kernel ? " [rt]" : "");
    put(out, "  {:<{}} {:>7} {:>10} {:>10} {:>5.1f}% {:>9} {:>7.3f} {:>6}  {}", name, name_width, k.durations.count,
         us(k.durations.total_ns), us(k.durations.median_ns), 100 * k.share_of_gpu_time,
         analysis::to_string(k.durations.stability), k.durations.cv,
         occ ? fmt::format("{:.0f}%", occ->occupancy.theoretical * 100) : std::string("-"),
         occ ? occ->occupancy.limiter : std::string("-"));
  }
  if (r.stats.kernels.size() > options.top)
    put(out, "  ... {} more (--top N to show more)", r.stats.kernels.size() - options.top);
  out.push_back('\n');

  put(out, "Critical path ({} ordering; edges: {} stream, {} event, {} sync, {} barrier{})", dag.ordering,
       dag.edges.stream_order, dag.edges.event_wait, dag.edges.host_sync, dag.edges.barrier,
       dag.edges.inferred ? fmt::format(", {} INFERRED", dag.edges.inferred) : std::string());
  put(out, "  length {} = {} busy + {} idle; {} nodes on the path", ms(dag.critical_path_ns),
       ms(dag.critical_path_busy_ns), ms(dag.critical_path_idle_ns), dag.path.size());
  put(out, "  parallelism {:.2f}x; overlap potential {} (wall span minus busy time on the path)", dag.parallelism,
       ms(dag.overlap_potential_ns));
  for (std::size_t i = 0; i < dag.contributions.size() && i < options.top; ++i) {
    const auto& c = dag.contributions[i];
    put(out, "  {:>5.1f}%  {:<{}} ({} on path, {})", 100 * c.fraction_of_path, shorten(c.name, name_width), name_width,
         c.dispatches_on_path, us(c.time_on_path_ns));
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
  return fmt::to_string(out);
}

}  // namespace rpl::report
