// The roofline chart of report.html: log-log axes, one memory roof per bandwidth level, one flat compute
// roof per precision, ridge points, and the kernels as circles whose area is proportional to their share
// of GPU time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html_util.hpp"
#include "report/kernel_names.hpp"

namespace rpl::report::html {
namespace {

constexpr double kWidth = 860, kHeight = 540;
constexpr double kLeft = 74, kRight = 24, kTop = 18, kBottom = 52;
constexpr double kMaxRadius = 28;  // a kernel with 100% of GPU time
constexpr double kMinRadius = 2.5; // so that tiny kernels stay visible (their area is then overstated)
constexpr std::size_t kLabelledPoints = 6;

bool plottable(const RooflinePoint& p) {
  return std::isfinite(p.ai) && std::isfinite(p.gflops) && p.ai > 0 && p.gflops > 0;
}

// A log10 axis over whole decades.
struct LogAxis {
  int lo = 0, hi = 1;
  double pixel_lo = 0, pixel_hi = 1;  // where lo and hi decades land
  double operator()(double v) const {
    return pixel_lo + (std::log10(v) - lo) / (hi - lo) * (pixel_hi - pixel_lo);
  }
  double min() const { return std::pow(10.0, lo); }
  double max() const { return std::pow(10.0, hi); }
};

LogAxis decades(double lo, double hi, int min_decades, double pixel_lo, double pixel_hi) {
  LogAxis a;
  a.lo = static_cast<int>(std::floor(std::log10(lo)));
  a.hi = static_cast<int>(std::ceil(std::log10(hi)));
  while (a.hi - a.lo < min_decades) {
    ++a.hi;
    if (a.hi - a.lo < min_decades) --a.lo;
  }
  a.pixel_lo = pixel_lo;
  a.pixel_hi = pixel_hi;
  return a;
}

std::string decade_label(int k) {
  if (k >= -3 && k <= 5) return fmt::format("{:g}", std::pow(10.0, k));
  return fmt::format("1e{}", k);
}

void axes(std::string& out, const LogAxis& x, const LogAxis& y) {
  for (int k = x.lo; k <= x.hi; ++k) {
    double px = x(std::pow(10.0, k));
    put(out, "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" />", px, kTop, px,
        kHeight - kBottom);
    put(out, "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px,
        kHeight - kBottom + 16, decade_label(k));
  }
  for (int k = y.lo; k <= y.hi; ++k) {
    double py = y(std::pow(10.0, k));
    put(out, "<line class=\"grid\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" />", kLeft, py,
        kWidth - kRight, py);
    put(out, "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", kLeft - 6, py + 4,
        decade_label(k));
  }
  put(out, "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" />", kLeft, kTop,
      kHeight - kBottom);
  put(out, "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" />\n", kLeft,
      kHeight - kBottom, kWidth - kRight);
  put(out, "<text class=\"axis-title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">arithmetic intensity "
           "(FLOP/byte)</text>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 12);
  put(out, "<text class=\"axis-title\" transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">"
           "performance (GFLOP/s)</text>\n",
      (kTop + kHeight - kBottom) / 2);
}

// The chart's frame: ceilings sorted fastest first, and log axes covering every point, ridge and roof.
struct Chart {
  std::vector<ComputeCeiling> compute;
  std::vector<MemoryCeiling> memory;
  LogAxis x, y;
};

Chart chart_frame(const RooflineView& view, const std::vector<const RooflinePoint*>& points) {
  Chart c;
  for (const auto& ceiling : view.compute)
    if (std::isfinite(ceiling.gflops) && ceiling.gflops > 0) c.compute.push_back(ceiling);
  for (const auto& m : view.memory)
    if (std::isfinite(m.gbps) && m.gbps > 0) c.memory.push_back(m);
  std::sort(c.compute.begin(), c.compute.end(), [](auto& a, auto& b) { return a.gflops > b.gflops; });
  std::sort(c.memory.begin(), c.memory.end(), [](auto& a, auto& b) { return a.gbps > b.gbps; });

  // The domain covers every point, every ridge, and the roofs down to 1e-4 of the top compute roof.
  double x_lo = std::numeric_limits<double>::max(), x_hi = 0, y_lo = std::numeric_limits<double>::max(), y_hi = 0;
  auto cover_x = [&](double v) { x_lo = std::min(x_lo, v), x_hi = std::max(x_hi, v); };
  auto cover_y = [&](double v) { y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v); };
  for (const auto* p : points) cover_x(p->ai), cover_y(p->gflops);
  for (const auto& ceiling : c.compute) {
    cover_y(ceiling.gflops);
    for (const auto& m : c.memory) cover_x(ceiling.gflops / m.gbps);
  }
  if (!c.compute.empty()) cover_y(c.compute.front().gflops / 1e4);
  if (x_hi == 0) x_lo = 0.1, x_hi = 10;
  if (y_hi == 0) y_lo = 1, y_hi = 100;
  c.x = decades(x_lo / 2, x_hi * 2, 3, kLeft, kWidth - kRight);
  c.y = decades(y_lo / 2, y_hi * 2, 2, kHeight - kBottom, kTop);
  return c;
}

// Memory roofs from where they enter the plot up to the top compute roof (or the right edge); compute roofs
// flat, from their ridge with the fastest memory level to the right edge.
void roofs(std::string& out, const Chart& c) {
  const LogAxis &x = c.x, &y = c.y;
  const double top_compute = c.compute.empty() ? y.max() : c.compute.front().gflops;
  for (const auto& m : c.memory) {
    double x0 = std::max(x.min(), y.min() / m.gbps), x1 = std::min(x.max(), top_compute / m.gbps);
    if (x0 >= x1) continue;
    double px0 = x(x0), py0 = y(x0 * m.gbps), px1 = x(x1), py1 = y(x1 * m.gbps);
    put(out, "<line class=\"roof memory\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"><title>{}: {}"
             "</title></line>\n",
        px0, py0, px1, py1, escape(m.name), bandwidth(m.gbps));
    // The label runs along the line, a little way in from its left end.
    double lx = px0 + (px1 - px0) * 0.08, ly = py0 + (py1 - py0) * 0.08;
    double angle = std::atan2(py1 - py0, px1 - px0) * 180 / M_PI;
    put(out, "<text class=\"roof-label memory\" transform=\"translate({:.1f} {:.1f}) rotate({:.1f})\" dy=\"-5\">"
             "{} {}</text>\n",
        lx, ly, angle, escape(m.name), bandwidth(m.gbps));
  }
  // Roofs of equal value (F8/I8, BF16/F16, ...) share one line and one label; a label that would overlap the
  // one above it moves down below it.
  constexpr double kLabelGap = 12;
  double last_label_y = -1e9;
  for (std::size_t i = 0; i < c.compute.size();) {
    std::size_t j = i + 1;
    std::string names = c.compute[i].name;
    while (j < c.compute.size() && c.compute[j].gflops >= c.compute[i].gflops * (1 - 1e-3)) names += " / " + c.compute[j++].name;
    const auto& ceiling = c.compute[i];
    double x0 = c.memory.empty() ? x.min() : std::max(x.min(), ceiling.gflops / c.memory.front().gbps);
    double py = y(ceiling.gflops);
    put(out, "<line class=\"roof compute\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"><title>{}: {}"
             "</title></line>\n",
        x(x0), py, x(x.max()), py, escape(names), rate(ceiling.gflops));
    double label_y = std::max(py - 5, last_label_y + kLabelGap);
    put(out, "<text class=\"roof-label compute\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{} {}</text>\n",
        x(x.max()) - 4, label_y, escape(names), rate(ceiling.gflops));
    last_label_y = label_y;
    i = j;
  }
}

// Ridge points: each compute roof against the fastest memory level, each slower memory level against the top
// compute roof.
void ridges(std::string& out, const Chart& c) {
  struct Ridge {
    double ai, px, py;
    std::string text;  // "TF32 matrix/HBM"
  };
  std::vector<Ridge> all;
  auto ridge = [&](const ComputeCeiling& ceiling, const MemoryCeiling& m) {
    double ai = ceiling.gflops / m.gbps;
    if (ai < c.x.min() || ai > c.x.max()) return;
    all.push_back({ai, c.x(ai), c.y(ceiling.gflops), shorten(ceiling.name, 12) + "/" + shorten(m.name, 8)});
    put(out, "<rect class=\"ridge\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"7\" height=\"7\" transform=\"rotate(45 {:.1f} "
             "{:.1f})\"><title>ridge {} / {}: {:.3g} FLOP/byte</title></rect>",
        all.back().px - 3.5, all.back().py - 3.5, all.back().px, all.back().py, escape(ceiling.name), escape(m.name),
        ai);
  };
  if (!c.memory.empty())
    for (const auto& ceiling : c.compute) ridge(ceiling, c.memory.front());
  if (!c.compute.empty())
    for (std::size_t i = 1; i < c.memory.size(); ++i) ridge(c.compute.front(), c.memory[i]);
  // A dotted drop line to the axis, labelled there (labels beside the roofs would collide with them); ridges
  // closer than a label's height share one label, so the labels never pile up.
  constexpr double kLabelGap = 12;
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.px < b.px; });
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    std::string values, names;
    double top = all[i].py;
    for (; j < all.size() && all[j].px - all[i].px < kLabelGap; ++j) {
      put(out, "<line class=\"ridge-drop\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" />", all[j].px,
          all[j].py, kHeight - kBottom);
      values += fmt::format("{}{:.3g}", j == i ? "" : ", ", all[j].ai);
      names += (j == i ? "" : ", ") + all[j].text;
      top = std::min(top, all[j].py);
    }
    put(out, "<text class=\"ridge-label\" transform=\"translate({:.1f} {:.1f}) rotate(-90)\">{} {} ({})</text>\n",
        all[i].px - 3, kHeight - kBottom - 6, j - i > 1 ? "ridges" : "ridge", values, escape(names));
    i = j;
  }
}

double point_radius(const RooflinePoint& p) {
  return std::max(kMinRadius, kMaxRadius * std::sqrt(std::clamp(p.share, 0.0, 1.0)));
}

// Points, largest first so that small ones stay on top and clickable; the largest few labelled.
void kernel_points(std::string& out, const Chart& c, std::vector<const RooflinePoint*> points) {
  std::stable_sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->share > b->share; });
  for (const auto* p : points) {
    std::string bound_class = p->bound == "memory" || p->bound == "compute" ? "b-" + p->bound : "b-other";
    put(out, "<circle class=\"point {}{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" data-kernel=\"{}\"><title>{}\n"
             "AI {:.3g} FLOP/byte{}, {}, {} of GPU time{}{}</title></circle>\n",
        bound_class, p->above_roof ? " above-roof" : "", c.x(p->ai), c.y(p->gflops), point_radius(*p),
        escape(p->kernel), escape(p->kernel), p->ai,
        p->level == "HBM" ? "" : " of " + escape(p->level) + " bytes (none reached device memory)", rate(p->gflops),
        percent(p->share),
        p->bound.empty() ? "" : ", " + escape(p->bound) + "-bound", p->above_roof ? "\nABOVE THE ROOF" : "");
  }
  // Labels of points at (nearly) the same place would print over each other: each moves down a line until its
  // box (estimated: 6.5 px a character at 10.5 px) is clear of the labels already placed.
  struct Box {
    double x0, x1, y0, y1;
  };
  std::vector<Box> placed;
  std::vector<std::string> labelled;
  for (std::size_t i = 0; i < points.size() && i < kLabelledPoints; ++i) labelled.push_back(points[i]->kernel);
  const std::vector<std::string> shown = display_names(labelled, NameForm::Short, 36);
  for (std::size_t i = 0; i < points.size() && i < kLabelledPoints; ++i) {
    const auto* p = points[i];
    double r = point_radius(*p);
    double px = c.x(p->ai) + r + 3;
    bool flip = px > kWidth - 200;  // near the right edge: label on the left
    const std::string& text = shown[i];
    const double width = 6.5 * static_cast<double>(text.size());
    const double x0 = flip ? c.x(p->ai) - r - 3 - width : px, x1 = x0 + width;
    double y = c.y(p->gflops) + 4;
    auto clashes = [&](double at) {
      return std::any_of(placed.begin(), placed.end(), [&](const Box& b) {
        return x0 < b.x1 && b.x0 < x1 && at - 10 < b.y1 && b.y0 < at + 2;
      });
    };
    while (clashes(y)) y += 13;
    placed.push_back({x0, x1, y - 10, y + 2});
    put(out, "<text class=\"point-label\" x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>\n", flip ? c.x(p->ai) - r - 3 : px, y,
        flip ? " text-anchor=\"end\"" : "", escape(text));
  }
}

void roofline_chart(std::string& out, const RooflineView& view, const std::vector<const RooflinePoint*>& points) {
  const Chart c = chart_frame(view, points);
  put(out, "<svg id=\"roofline\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
           "aria-label=\"roofline\">\n",
      kWidth, kHeight);
  axes(out, c.x, c.y);
  roofs(out, c);
  ridges(out, c);
  kernel_points(out, c, points);
  out += "</svg>\n";
  out += "<div class=\"legend\"><span><i style=\"background:#3b82c4\"></i>memory-bound</span>"
         "<span><i style=\"background:#e07b24\"></i>compute-bound</span>"
         "<span><i style=\"background:#7d8793\"></i>other</span>"
         "<span><i style=\"background:#d62728;outline:1px dashed #000\"></i>above a roof (counters or peaks suspect)"
         "</span><span>circle area proportional to share of GPU time (at least 2.5 px radius)</span></div>\n";
  if (c.compute.empty() || c.memory.empty())
    out += "<p class=\"sub\">No peak figures for this device: ceilings incomplete.</p>\n";
}

// Kernels that did no floating-point work, on a bandwidth axis: a bar per kernel, its length the achieved
// device-memory bandwidth, the device's ceiling as a line.
void bandwidth_chart(std::string& out, const std::vector<BandwidthBar>& bars_in) {
  std::vector<const BandwidthBar*> bars;
  for (const auto& b : bars_in) bars.push_back(&b);
  std::stable_sort(bars.begin(), bars.end(), [](auto* a, auto* b) { return a->share > b->share; });
  constexpr double kLabelWidth = 300, kBarLeft = kLeft + kLabelWidth, kRow = 22, kAxis = 36;
  double peak = 0, top = 0;
  for (const auto* b : bars) peak = std::max(peak, b->peak_gbps), top = std::max(top, b->gbps);
  const double scale_max = std::max(peak, top) * 1.08;
  const double bar_width = kWidth - kRight - kBarLeft - 120;  // room for the value after the longest bar
  auto px = [&](double gbps) { return kBarLeft + gbps / scale_max * bar_width; };
  const double height = kTop + kRow * static_cast<double>(bars.size()) + kAxis;
  put(out, "<h3>Placed by bandwidth: kernels without floating-point work</h3>\n"
           "<p class=\"sub\">{} kernel(s) counted bytes but no FLOPs (integer, copy or gather work): they have no "
           "arithmetic intensity, so each is placed by its achieved bandwidth at the memory level closest to its "
           "ceiling (the busiest level where no ceiling is known){}.</p>\n",
      bars.size(), peak > 0 ? "" : "; no ceiling is known for the levels shown");
  put(out, "<svg id=\"bandwidth-bars\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} {1:.0f}\" role=\"img\" "
           "aria-label=\"bandwidth of kernels without FLOPs\">\n",
      kWidth, height);
  // Shortened names that never collide (templated kernels differ in the middle of their names).
  std::vector<std::string> full_names;
  for (const auto* b : bars) full_names.push_back(b->kernel);
  const std::vector<std::string> shown = display_names(full_names, NameForm::Short, 44);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto* b = bars[i];
    double y = kTop + kRow * static_cast<double>(i);
    std::string of_peak = b->peak_gbps > 0 ? ", " + percent(b->gbps / b->peak_gbps) + " of the ceiling" : "";
    put(out, "<text class=\"bar-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
        kBarLeft - 8, y + kRow * 0.65, escape(shown[i]));
    put(out, "<rect class=\"bar b-memory\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
             "data-kernel=\"{}\"><title>{}\n{} {}{}, {} of GPU time</title></rect>",
        kBarLeft, y + 3, std::max(1.0, px(b->gbps) - kBarLeft), kRow - 6, escape(b->kernel), escape(b->kernel),
        escape(b->level), bandwidth(b->gbps), of_peak, percent(b->share));
    put(out, "<text class=\"bar-value\" x=\"{:.1f}\" y=\"{:.1f}\">{} {}{}</text>\n", px(b->gbps) + 4,
        y + kRow * 0.65, escape(b->level), bandwidth(b->gbps),
        b->peak_gbps > 0 ? " (" + percent(b->gbps / b->peak_gbps) + ")" : "");
  }
  const double axis_y = kTop + kRow * static_cast<double>(bars.size());
  put(out, "<line class=\"axis\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" />", kBarLeft, axis_y,
      kWidth - kRight);
  put(out, "<text class=\"axis-title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">achieved bandwidth "
           "(0 to {})</text>\n",
      kBarLeft + bar_width / 2, axis_y + 26, bandwidth(scale_max));
  if (peak > 0)
    put(out, "<line class=\"roof memory\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\"><title>ceiling "
             "{3}</title></line><text class=\"roof-label memory\" x=\"{0:.1f}\" y=\"{4:.1f}\" "
             "text-anchor=\"end\">ceiling {3}</text>\n",
        px(peak), kTop - 4, axis_y, bandwidth(peak), axis_y + 12);
  out += "</svg>\n";
}

void undrawn_list(std::string& out, const std::vector<UndrawnKernel>& undrawn) {
  put(out, "<p class=\"sub\" id=\"roofline-undrawn\">{} kernel(s) not drawn:</p><ul class=\"undrawn\">", undrawn.size());
  for (const auto& u : undrawn) put(out, "<li><b>{}</b>: {}</li>", escape(shorten(u.kernel, 80)), escape(u.reason));
  out += "</ul>\n";
}

}  // namespace

std::string roofline_section(const RooflineView* view) {
  std::string out;
  const bool nothing = !view || (view->points.empty() && view->bandwidth_only.empty() && view->undrawn.empty());
  if (nothing) {
    out += "<div class=\"note\" id=\"roofline-none\"><b>No roofline</b>: ";
    out += view && !view->note.empty() ? escape(view->note)
                                       : "the roofline needs hardware counters (FLOPs and bytes per kernel); profile "
                                         "with `rocm-perf profile --roofline` to see it.";
    out += "</div>\n";
    return out;
  }
  if (!view->device.empty()) out += "<p class=\"sub\">" + escape(view->device) + "</p>\n";
  std::vector<const RooflinePoint*> points;
  for (const auto& p : view->points)
    if (plottable(p)) points.push_back(&p);
  if (!points.empty()) roofline_chart(out, *view, points);
  else
    put(out, "<div class=\"note\" id=\"roofline-no-flops\">No kernel has both FLOPs and device-memory bytes, so "
             "none has an arithmetic intensity to place on the roofline{}.</div>\n",
        view->bandwidth_only.empty() ? "" : "; the kernels are placed by their bandwidth below");
  if (points.size() < view->points.size())
    put(out, "<p class=\"sub\">{} kernel(s) not plotted: intensity or FLOP/s not a finite positive number.</p>\n",
        view->points.size() - points.size());
  if (!view->bandwidth_only.empty()) bandwidth_chart(out, view->bandwidth_only);
  if (!view->undrawn.empty()) undrawn_list(out, view->undrawn);
  return out;
}

}  // namespace rpl::report::html
