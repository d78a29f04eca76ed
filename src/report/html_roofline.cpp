// The roofline chart of report.html: log-log axes, one memory roof per bandwidth level, one flat compute
// roof per precision, ridge points, and the kernels as circles whose area is proportional to their share
// of GPU time.
#include <algorithm>
#include <cmath>
#include <limits>

#include "report/html_util.hpp"

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

}  // namespace

std::string roofline_section(const RooflineView* view) {
  std::vector<const RooflinePoint*> points;
  if (view)
    for (const auto& p : view->points)
      if (plottable(p)) points.push_back(&p);
  std::string out;
  if (!view || view->points.empty()) {
    out += "<div class=\"note\" id=\"roofline-none\"><b>No counter data</b>: the roofline needs hardware counters "
           "(FLOPs and bytes per kernel). Profile with counters collected to see it.";
    if (view && !view->note.empty()) out += " " + escape(view->note);
    out += "</div>\n";
    return out;
  }

  std::vector<ComputeCeiling> compute;
  std::vector<MemoryCeiling> memory;
  for (const auto& c : view->compute)
    if (std::isfinite(c.gflops) && c.gflops > 0) compute.push_back(c);
  for (const auto& m : view->memory)
    if (std::isfinite(m.gbps) && m.gbps > 0) memory.push_back(m);
  std::sort(compute.begin(), compute.end(), [](auto& a, auto& b) { return a.gflops > b.gflops; });
  std::sort(memory.begin(), memory.end(), [](auto& a, auto& b) { return a.gbps > b.gbps; });

  // The domain covers every point, every ridge, and the roofs down to 1e-4 of the top compute roof.
  double x_lo = std::numeric_limits<double>::max(), x_hi = 0, y_lo = std::numeric_limits<double>::max(), y_hi = 0;
  auto cover_x = [&](double v) { x_lo = std::min(x_lo, v), x_hi = std::max(x_hi, v); };
  auto cover_y = [&](double v) { y_lo = std::min(y_lo, v), y_hi = std::max(y_hi, v); };
  for (const auto* p : points) cover_x(p->ai), cover_y(p->gflops);
  for (const auto& c : compute) {
    cover_y(c.gflops);
    for (const auto& m : memory) cover_x(c.gflops / m.gbps);
  }
  if (!compute.empty()) cover_y(compute.front().gflops / 1e4);
  if (x_hi == 0) x_lo = 0.1, x_hi = 10;
  if (y_hi == 0) y_lo = 1, y_hi = 100;
  LogAxis x = decades(x_lo / 2, x_hi * 2, 3, kLeft, kWidth - kRight);
  LogAxis y = decades(y_lo / 2, y_hi * 2, 2, kHeight - kBottom, kTop);

  put(out, "<svg id=\"roofline\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
           "aria-label=\"roofline\">\n",
      kWidth, kHeight);
  axes(out, x, y);

  // Memory roofs: from where they enter the plot up to the top compute roof (or the right edge).
  const double top_compute = compute.empty() ? y.max() : compute.front().gflops;
  for (const auto& m : memory) {
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
  // Compute roofs: flat, from their ridge with the fastest memory level to the right edge.
  for (const auto& c : compute) {
    double x0 = memory.empty() ? x.min() : std::max(x.min(), c.gflops / memory.front().gbps);
    double py = y(c.gflops);
    put(out, "<line class=\"roof compute\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"><title>{}: {}"
             "</title></line>\n",
        x(x0), py, x(x.max()), py, escape(c.name), rate(c.gflops));
    put(out, "<text class=\"roof-label compute\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{} {}</text>\n",
        x(x.max()) - 4, py - 5, escape(c.name), rate(c.gflops));
  }
  // Ridge points: each compute roof against the fastest memory level, each slower memory level against
  // the top compute roof.
  auto ridge = [&](const ComputeCeiling& c, const MemoryCeiling& m) {
    double ai = c.gflops / m.gbps;
    if (ai < x.min() || ai > x.max()) return;
    double px = x(ai), py = y(c.gflops);
    // A dotted drop line to the axis, labelled there: labels beside the roofs would collide with them.
    put(out, "<line class=\"ridge-drop\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" />", px, py,
        kHeight - kBottom);
    put(out, "<rect class=\"ridge\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"7\" height=\"7\" transform=\"rotate(45 {:.1f} "
             "{:.1f})\"><title>ridge {} / {}: {:.3g} FLOP/byte</title></rect>",
        px - 3.5, py - 3.5, px, py, escape(c.name), escape(m.name), ai);
    put(out, "<text class=\"ridge-label\" transform=\"translate({:.1f} {:.1f}) rotate(-90)\">ridge {:.3g} ({}/{})"
             "</text>\n",
        px - 3, kHeight - kBottom - 6, ai, escape(shorten(c.name, 12)), escape(shorten(m.name, 8)));
  };
  if (!memory.empty())
    for (const auto& c : compute) ridge(c, memory.front());
  if (!compute.empty())
    for (std::size_t i = 1; i < memory.size(); ++i) ridge(compute.front(), memory[i]);

  // Points, largest first so that small ones stay on top and clickable.
  std::stable_sort(points.begin(), points.end(), [](auto* a, auto* b) { return a->share > b->share; });
  for (const auto* p : points) {
    double r = std::max(kMinRadius, kMaxRadius * std::sqrt(std::clamp(p->share, 0.0, 1.0)));
    std::string bound_class = p->bound == "memory" || p->bound == "compute" ? "b-" + p->bound : "b-other";
    put(out, "<circle class=\"point {}{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" data-kernel=\"{}\"><title>{}\n"
             "AI {:.3g} FLOP/byte, {}, {} of GPU time{}{}</title></circle>\n",
        bound_class, p->above_roof ? " above-roof" : "", x(p->ai), y(p->gflops), r, escape(p->kernel),
        escape(p->kernel), p->ai, rate(p->gflops), percent(p->share),
        p->bound.empty() ? "" : ", " + escape(p->bound) + "-bound", p->above_roof ? "\nABOVE THE ROOF" : "");
  }
  for (std::size_t i = 0; i < points.size() && i < kLabelledPoints; ++i) {
    const auto* p = points[i];
    double r = std::max(kMinRadius, kMaxRadius * std::sqrt(std::clamp(p->share, 0.0, 1.0)));
    double px = x(p->ai) + r + 3;
    bool flip = px > kWidth - 200;  // near the right edge: label on the left
    put(out, "<text class=\"point-label\" x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>\n",
        flip ? x(p->ai) - r - 3 : px, y(p->gflops) + 4, flip ? " text-anchor=\"end\"" : "",
        escape(shorten(p->kernel, 36)));
  }
  out += "</svg>\n";

  out += "<div class=\"legend\"><span><i style=\"background:#3b82c4\"></i>memory-bound</span>"
         "<span><i style=\"background:#e07b24\"></i>compute-bound</span>"
         "<span><i style=\"background:#7d8793\"></i>other</span>"
         "<span><i style=\"background:#d62728;outline:1px dashed #000\"></i>above a roof (counters or peaks suspect)"
         "</span><span>circle area proportional to share of GPU time (at least 2.5 px radius)</span></div>\n";
  out += "<p class=\"sub\">";
  if (!view->device.empty()) out += escape(view->device) + ". ";
  std::size_t dropped = view->points.size() - points.size();
  if (dropped) put(out, "{} kernel(s) not plotted: zero FLOPs or bytes. ", dropped);
  if (compute.empty() || memory.empty()) out += "No peak figures for this device: ceilings incomplete. ";
  if (!view->note.empty()) out += escape(view->note);
  out += "</p>\n";
  return out;
}

}  // namespace rpl::report::html
