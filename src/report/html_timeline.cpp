// The timeline of report.html: one lane per (process, stream), each dispatch or copy a rectangle, the
// critical path outlined on top, and the cross-stream steps the path takes drawn as lines.
//
// Aggregation keeps the page small for any trace: a rectangle starts only when work starts at least one
// column (a pixel, or more when there are many lanes) after the current rectangle's start, so a lane
// has at most (width / column + 1) rectangles. Work starting within a rectangle's first column is merged
// into it; a merged rectangle is coloured by its longest member, its opacity is the busy fraction of its
// extent, and its tooltip counts its members.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "support/checked_math.hpp"
#include "report/html_util.hpp"
#include "report/kernel_names.hpp"
#include "report/work_lanes.hpp"

namespace rpl::report::html {
namespace {

using analysis::NodeKind;
using analysis::NodeRef;

constexpr double kLabelWidth = 230;
constexpr double kAxisHeight = 26;
constexpr double kProcessHeader = 20;
constexpr double kLaneHeight = 16, kLaneGap = 5;
constexpr std::size_t kPaletteSize = 10;

struct Scale {
  TimeNs t0 = 0;
  double px_per_ns = 0;
  double x(TimeNs t) const {
    return kLabelWidth + (static_cast<double>(t) - static_cast<double>(t0)) * px_per_ns;
  }
};

// Colour classes: the top kernels by GPU time get the palette (k0..k9), other kernels grey, copies slate.
class Colours {
 public:
  explicit Colours(const app::AnalyzeResults& r) : trace_(r.trace), by_string_(r.trace.strings.size(), -1) {
    std::unordered_map<std::string_view, int> top;
    for (std::size_t i = 0; i < r.stats.kernels.size() && i < kPaletteSize; ++i)
      top.emplace(r.stats.kernels[i].name, static_cast<int>(i));
    for (const KernelSymbol& s : r.trace.symbols) {
      auto it = top.find(r.trace.strings.at(s.display_name));
      if (it != top.end()) by_string_[s.display_name] = it->second;
    }
  }
  std::string of(NodeRef n) const {
    if (n.kind == NodeKind::Copy) return "cpy";
    int k = by_string_[trace_.symbols[trace_.dispatches.symbol_of(n.index)].display_name];
    return k < 0 ? "ko" : fmt::format("k{}", k);
  }

 private:
  const Trace& trace_;
  std::vector<int> by_string_;
};

// A run of work drawn as one rectangle.
struct Group {
  TimeNs start = 0, end = 0;
  double busy_ns = 0;
  std::size_t count = 0;
  NodeRef longest{NodeKind::Dispatch, kNoIndex};
  TimeNs longest_ns = -1;
};

class LaneDrawer {
 public:
  LaneDrawer(const Trace& t, const Scale& scale, double column_px, const Colours& colours)
      : t_(t), scale_(scale), column_px_(column_px), colours_(colours) {}

  // Draws `nodes` (by start) into the lane at `y`; `path_only`: outline rectangles of the critical path.
  template <typename Filter>
  void draw(const std::vector<NodeRef>& nodes, double y, bool path_only, Filter&& keep, std::string& out) {
    Group g;
    for (NodeRef n : nodes)
      if (keep(n)) feed(g, n, y, path_only, out);
    finish(g, y, path_only, out);
  }
  // The same node by node: the lane's next node (by start) joins group `g` or ends it (written to `out`).
  void feed(Group& g, NodeRef n, double y, bool path_only, std::string& out) {
    TimeNs s = node_start(t_, n), e = std::max(node_end(t_, n), s);
    if (g.count > 0 && joins(g, s, path_only)) {
      g.end = std::max(g.end, e);
    } else {
      if (g.count > 0) emit(g, y, path_only, out);
      g = Group{s, e};
    }
    // span_ns never overflows or goes negative, so the first member always becomes the longest.
    const TimeNs length = span_ns(s, e);
    g.busy_ns += static_cast<double>(length);
    ++g.count;
    if (length > g.longest_ns) g.longest_ns = length, g.longest = n;
  }
  void finish(const Group& g, double y, bool path_only, std::string& out) {
    if (g.count > 0) emit(g, y, path_only, out);
  }

 private:
  double width(TimeNs a, TimeNs b) const {
    return (static_cast<double>(b) - static_cast<double>(a)) * scale_.px_per_ns;
  }

  // Work joins the group when it starts in the group's first column. Groups thus start at least a column
  // apart: at most width / column + 1 per lane, and dense work becomes one rectangle per column whose
  // opacity shows how busy the column is. Path outlines also join across gaps narrower than a column:
  // a run of path nodes becomes one outline rather than a wall of touching ones.
  bool joins(const Group& g, TimeNs s, bool path_only) const {
    return width(g.start, s) < column_px_ || (path_only && width(g.end, s) < column_px_);
  }

  void emit(const Group& g, double y, bool path_only, std::string& out) {
    double x0 = scale_.x(g.start), w = std::max(width(g.start, g.end), 0.8);
    const std::string& name = node_name(t_, g.longest);
    const char* what = g.longest.kind == NodeKind::Copy ? "copy" : "kernel";
    if (path_only) {
      put(out, "<rect class=\"cp\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>critical path",
          x0, y - 1.5, w, kLaneHeight + 3);
    } else {
      put(out, "<rect class=\"{}{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"", colours_.of(g.longest),
          g.count > 1 ? " m" : "", x0, y, w, kLaneHeight);
      if (g.count > 1) {
        double busy = g.end > g.start ? g.busy_ns / static_cast<double>(span_ns(g.start, g.end)) : 1.0;
        put(out, " fill-opacity=\"{:.2f}\"", std::clamp(busy, 0.35, 1.0));
      }
      out += "><title>";
    }
    if (g.count == 1) {
      put(out, "{}{}\n{} at +{}", path_only ? ": " : "", escape(name), duration(static_cast<double>(span_ns(g.start, g.end))),
          duration(static_cast<double>(g.start) - static_cast<double>(scale_.t0)));
    } else {
      put(out, "{}{} items merged, busy {} of {}\nlongest {}: {}", path_only ? ": " : "", g.count,
          duration(g.busy_ns), duration(static_cast<double>(span_ns(g.start, g.end))), what, escape(name));
    }
    out += "</title></rect>\n";
  }

  const Trace& t_;
  const Scale& scale_;
  double column_px_;
  const Colours& colours_;
};

constexpr double kMetricHeight = 36;

// One device metric (--monitor-device) as a line under the lanes, on the same time scale: samples inside
// the plotted window only, at most one point per pixel column (the column's maximum, so peaks survive).
void metric_track(std::string& out, const DeviceMetricSeries& s, const Scale& scale, TimeNs t0, TimeNs t1, double y,
                  double plot_width) {
  std::vector<std::pair<double, double>> points;  // (x, value)
  double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
  for (std::size_t i = 0; i < s.times.size() && i < s.values.size(); ++i) {
    if (s.times[i] < t0 || s.times[i] > t1 || !std::isfinite(s.values[i])) continue;
    double x = std::floor(scale.x(s.times[i]));
    if (!points.empty() && points.back().first == x)
      points.back().second = std::max(points.back().second, s.values[i]);
    else
      points.emplace_back(x, s.values[i]);
    lo = std::min(lo, s.values[i]), hi = std::max(hi, s.values[i]);
  }
  put(out, "<g class=\"metric\" data-device=\"{}\" data-metric=\"{}\" data-samples=\"{}\">\n", s.device,
      escape(s.metric), points.size());
  put(out, "<rect class=\"lane-bg\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" />", kLabelWidth, y,
      plot_width, kMetricHeight);
  put(out, "<text class=\"lane-label\" x=\"14\" y=\"{:.1f}\">GPU {} {} ({})</text>\n", y + 14, s.device,
      escape(s.metric), escape(s.unit));
  if (!points.empty()) {
    put(out, "<text class=\"tick\" x=\"14\" y=\"{:.1f}\">{:.4g} .. {:.4g}</text>\n", y + 28, lo, hi);
    const double range = hi > lo ? hi - lo : 1;
    out += "<polyline class=\"metric-line\" fill=\"none\" stroke=\"#e15759\" stroke-width=\"1.5\" points=\"";
    for (const auto& [x, v] : points)
      put(out, "{:.1f},{:.1f} ", x, y + kMetricHeight - 3 - (v - lo) / range * (kMetricHeight - 6));
    put(out, "\"><title>GPU {} {}: {:.4g} to {:.4g} {}</title></polyline>\n", s.device, escape(s.metric), lo, hi,
        escape(s.unit));
  }
  out += "</g>\n";
}

void legend(std::string& out, const app::AnalyzeResults& r) {
  static const char* kColours[kPaletteSize] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                               "#edc948", "#ff9da7", "#9c755f", "#8cd17d", "#86bcb6"};
  out += "<div class=\"legend\">";
  std::vector<std::string> names;  // shortened so that no two kernels of the legend read the same
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < kPaletteSize; ++i) names.push_back(r.stats.kernels[i].name);
  const std::vector<std::string> shown = display_names(names, NameForm::Short, 40);
  for (std::size_t i = 0; i < names.size(); ++i)
    put(out, "<span title=\"{}\"><i style=\"background:{}\"></i>{}</span>", escape(names[i]), kColours[i],
        escape(shown[i]));
  out += "<span><i style=\"background:#a9b0b8\"></i>other kernels</span>"
         "<span><i style=\"background:#556070\"></i>copies</span>"
         "<span><i style=\"outline:2px solid #d0021b\"></i>critical path</span>"
         "<span><i style=\"border-top:2px dashed #d0021b;height:0\"></i>cross-stream step of the path</span>"
         "</div>\n";
}

// The time axis, relative to the first start: a grid line and a tick label per step.
void time_axis(std::string& out, double span, const Scale& scale, double total_height) {
  html::time_axis(out, span, kLabelWidth, scale.px_per_ns, kAxisHeight - 8, kAxisHeight - 4, total_height - 4);
}

// One group per lane: its background, its label, its work, and the work on the critical path drawn again on top.
// The lanes' nodes come from one pass over the trace (WorkLanes::for_each_by_lane), each lane's rectangles kept
// apart until every lane is drawn (issue 32: no per-node lists); when the trace does not hold each lane's work in
// order, from the lanes' sorted node lists.
void draw_lanes(std::string& out, const app::AnalyzeResults& r, const WorkLanes& work, const std::vector<double>& lane_y,
                const Scale& scale, double column_px, double plot_width) {
  const Trace& t = r.trace;
  const std::vector<WorkLane>& lanes = work.lanes();
  // Which nodes are on the path (one bit per node: no hashing per node).
  std::vector<bool> on_path_dispatch(t.dispatches.size()), on_path_copy(t.copies.size());
  for (NodeRef n : r.dag.path) (n.kind == NodeKind::Dispatch ? on_path_dispatch : on_path_copy)[n.index] = true;
  auto on_path = [&](NodeRef n) { return (n.kind == NodeKind::Dispatch ? on_path_dispatch : on_path_copy)[n.index]; };

  Colours colours(r);
  LaneDrawer drawer(t, scale, column_px, colours);
  std::vector<std::string> work_rects(lanes.size()), path_rects(lanes.size());
  std::vector<Group> work_group(lanes.size()), path_group(lanes.size());
  const bool streamed = work.for_each_by_lane([&](std::size_t i, NodeRef n) {
    drawer.feed(work_group[i], n, lane_y[i], false, work_rects[i]);
    if (on_path(n)) drawer.feed(path_group[i], n, lane_y[i], true, path_rects[i]);
  });
  std::optional<WorkLanes> sorted;
  if (!streamed) sorted.emplace(t);
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const WorkLane& lane = lanes[i];
    put(out, "<g class=\"lane\" data-process=\"{}\" data-lane=\"{}\" data-items=\"{}\">\n",
        lane.process == kNoIndex ? int64_t{-1} : static_cast<int64_t>(t.processes[lane.process].pid),
        escape(lane.label), lane.count);
    put(out, "<rect class=\"lane-bg\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" />", kLabelWidth,
        lane_y[i], plot_width, kLaneHeight);
    put(out, "<text class=\"lane-label\" x=\"14\" y=\"{:.1f}\">{}</text>\n", lane_y[i] + 12,
        escape(shorten(lane.label, 34)));
    if (streamed) {
      drawer.finish(work_group[i], lane_y[i], false, work_rects[i]);
      drawer.finish(path_group[i], lane_y[i], true, path_rects[i]);
      out += work_rects[i];
      out += path_rects[i];
      std::string().swap(work_rects[i]);
      std::string().swap(path_rects[i]);
    } else {
      drawer.draw(sorted->lanes()[i].nodes, lane_y[i], false, [](NodeRef) { return true; }, out);
      drawer.draw(sorted->lanes()[i].nodes, lane_y[i], true, on_path, out);
    }
    out += "</g>\n";
  }
}

struct PathSteps {
  std::size_t steps = 0;    // times the critical path changes lane
  std::size_t skipped = 0;  // of those, not drawn (over max_edges)
};

// Cross-stream steps of the path: consecutive path nodes on different lanes. Deduplicated per pixel.
PathSteps draw_path_steps(std::string& out, const app::AnalyzeResults& r, const WorkLanes& work, const Scale& scale,
                          const std::vector<double>& lane_y, std::size_t max_edges) {
  const Trace& t = r.trace;
  std::unordered_set<uint64_t> drawn;
  PathSteps p;
  out += "<g class=\"cp-edges\">\n";
  for (std::size_t i = 1; i < r.dag.path.size(); ++i) {
    NodeRef u = r.dag.path[i - 1], v = r.dag.path[i];
    std::size_t lu = work.lane_of(u), lv = work.lane_of(v);
    if (lu == lv) continue;
    ++p.steps;
    double x1 = scale.x(node_end(t, u)), x2 = scale.x(node_start(t, v));
    uint64_t key = (static_cast<uint64_t>(lu) * 1000003u + lv) * 1000003u * 1000003u +
                   static_cast<uint64_t>(std::lround(x1)) * 1000003u + static_cast<uint64_t>(std::lround(x2));
    if (!drawn.insert(key).second) continue;
    if (drawn.size() > max_edges) {
      ++p.skipped;
      continue;
    }
    double y1 = lane_y[lu] + kLaneHeight / 2, y2 = lane_y[lv] + kLaneHeight / 2;
    put(out, "<line class=\"cp-edge\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"><title>critical path: {} "
             "-&gt; {}</title></line>\n",
        x1, y1, x2, y2, escape(shorten(node_name(t, u), 80)), escape(shorten(node_name(t, v), 80)));
  }
  return p;
}

}  // namespace

std::string timeline_section(const app::AnalyzeResults& r, const HtmlOptions& options) {
  const Trace& t = r.trace;
  std::string out;
  if (t.empty()) {
    out += "<div class=\"note\">The trace has no dispatches or copies.</div>\n";
    return out;
  }
  const WorkLanes work(t, false);  // the nodes are visited by draw_lanes
  const auto& lanes = work.lanes();

  TimeNs t0 = std::numeric_limits<TimeNs>::max(), t1 = std::numeric_limits<TimeNs>::min();
  for (std::size_t i = 0; i < t.dispatches.size(); ++i)
    t0 = std::min(t0, t.dispatches.start_of(i)), t1 = std::max(t1, t.dispatches.end_of(i));
  for (const MemoryCopy& c : t.copies) t0 = std::min(t0, c.start), t1 = std::max(t1, c.end);
  const double plot_width = std::max(options.timeline_width_px, 100);
  Scale scale{t0, plot_width / static_cast<double>(std::max<TimeNs>(span_ns(t0, t1), 1))};
  // Many lanes share the rectangle budget: their columns get wider than a pixel.
  const double column_px = std::max(
      1.0, static_cast<double>(lanes.size()) * plot_width / static_cast<double>(std::max<std::size_t>(options.max_timeline_rects, 1)));

  // Layout: a header row per process, then its lanes.
  std::vector<double> lane_y(lanes.size());
  std::vector<std::pair<double, Index>> headers;
  double y = kAxisHeight + 4;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    if (i == 0 || lanes[i].process != lanes[i - 1].process) {
      headers.emplace_back(y, lanes[i].process);
      y += kProcessHeader;
    }
    lane_y[i] = y;
    y += kLaneHeight + kLaneGap;
  }
  // Device metrics (--monitor-device) below the lanes, under their own header.
  std::vector<double> metric_y;
  if (!t.device_metrics.empty()) y += kProcessHeader;
  const double metrics_header_y = y - kProcessHeader;
  for (std::size_t i = 0; i < t.device_metrics.size(); ++i) {
    metric_y.push_back(y);
    y += kMetricHeight + kLaneGap;
  }
  const double total_width = kLabelWidth + plot_width + 36, total_height = y + 6;

  legend(out, r);
  put(out, "<svg id=\"timeline\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" "
           "aria-label=\"timeline\">\n",
      total_width, total_height);

  time_axis(out, static_cast<double>(t1 - t0), scale, total_height);

  for (const auto& [hy, process] : headers)
    put(out, "<text class=\"proc\" x=\"6\" y=\"{:.1f}\">{}</text>\n", hy + 14, escape(shorten(process_label(t, process), 80)));

  draw_lanes(out, r, work, lane_y, scale, column_px, plot_width);

  if (!t.device_metrics.empty())
    put(out, "<text class=\"proc\" x=\"6\" y=\"{:.1f}\">Device metrics ({})</text>\n", metrics_header_y + 14,
        escape(t.device_metrics.front().source));
  for (std::size_t i = 0; i < t.device_metrics.size(); ++i)
    metric_track(out, t.device_metrics[i], scale, t0, t1, metric_y[i], plot_width);

  const PathSteps path = draw_path_steps(out, r, work, scale, lane_y, options.max_path_edges);
  out += "</g>\n</svg>\n";

  put(out, "<p class=\"sub\">{} lanes; {} nodes, {} on the critical path, which changes stream {} times.{}{}</p>\n",
      lanes.size(), work.node_count(), r.dag.path.size(), path.steps,
      column_px > 1.0 || work.node_count() > plot_width
          ? fmt::format(" Work narrower than {:.0f} px is merged (hover a rectangle for its members).", column_px)
          : std::string(),
      path.skipped ? fmt::format(" {} cross-stream steps not drawn.", path.skipped) : std::string());
  return out;
}

// "Nice" tick step (1, 2, 5 x 10^k ns) giving about `target` ticks over `span`.
static double tick_step(double span, int target) {
  double raw = span / target, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * magnitude >= raw) return m * magnitude;
  return 10 * magnitude;
}

void time_axis(std::string& out, double span_ns, double x0, double px_per_ns, double label_y, double grid_top,
               double grid_bottom) {
  const double step = tick_step(std::max(span_ns, 1.0), 8);
  for (double tick = 0; tick <= span_ns + step * 1e-9; tick += step) {
    const double px = x0 + tick * px_per_ns;
    put(out, "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" />", px, grid_top,
        grid_bottom);
    put(out, "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px, label_y,
        tick == 0 ? std::string("0") : duration(tick));
  }
}

}  // namespace rpl::report::html
