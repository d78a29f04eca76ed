#pragma once
// report.html: one self-contained page (inline CSS and SVG, no script, no network reference of any kind)
// with the roofline, a per-stream timeline with the critical path, and the analysis tables.
//
// Sizes stay bounded whatever the trace: the timeline merges work narrower than a pixel into one
// rectangle per pixel column (at most about `timeline_width_px` rectangles per lane, fewer per lane when
// there are many lanes), so a 1M-dispatch trace gives a page of a few MB at most.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "app/analyze.hpp"

namespace rpl::report {

// The roofline as the HTML report draws it; filled by the roofline analysis (or a test) so the report does
// not depend on how it is computed.
struct ComputeCeiling {
  std::string name;  // "FP32 vector", "FP16 matrix"
  double gflops = 0;
};
struct MemoryCeiling {
  std::string name;  // "HBM", "L2", "LDS"
  double gbps = 0;
};
struct RooflinePoint {
  std::string kernel;      // display name
  double ai = 0;           // arithmetic intensity, FLOP per byte (of the level the analysis chose)
  double gflops = 0;       // achieved
  double share = 0;        // of GPU time, 0..1: the point's area is proportional to it
  bool above_roof = false; // achieved above the ceiling: counters or peaks are suspect
  std::string bound;       // "memory", "compute", ... as the analysis classified it
  std::string level = "HBM";  // whose bytes the intensity counts: HBM, or the nearest level with bytes when the
                              // kernel moved none to device memory (its data stayed in cache)
};
// A kernel whose FLOP counters read zero has no arithmetic intensity: it is placed by its bandwidth instead
// (integer, copy and gather kernels), at the memory level closest to its ceiling (the busiest level where no
// ceiling is known).
struct BandwidthBar {
  std::string kernel;
  std::string level;     // "HBM", "L2", "L1", "LDS"
  double gbps = 0;       // achieved at that level
  double peak_gbps = 0;  // the level's ceiling on this device; 0 when unknown
  double share = 0;      // of GPU time, 0..1
};
// A kernel that is neither a point nor a bar, and why.
struct UndrawnKernel {
  std::string kernel;
  std::string reason;
};
struct RooflineView {
  std::string device;  // caption, e.g. "AMD Instinct MI300X (gfx942)"; may be empty
  std::vector<ComputeCeiling> compute;
  std::vector<MemoryCeiling> memory;
  std::vector<RooflinePoint> points;
  std::vector<BandwidthBar> bandwidth_only;
  std::vector<UndrawnKernel> undrawn;
  std::string note;    // shown under the chart: why there is no roofline at all, when there is none
};

struct HtmlOptions {
  std::string title = "rocm-perf report";
  std::size_t top = 20;          // rows of the kernel and critical-path tables
  int timeline_width_px = 1200;  // drawing width of the time axis; aggregation is per pixel of it
  std::size_t max_timeline_rects = 60000;  // over all lanes: many lanes get coarser columns than a pixel
  std::size_t max_path_edges = 2000;       // cross-stream lines of the critical path drawn (the rest counted)
  std::string kernel_filter;               // --kernel: said above the numbers it restricts ("" = none)
  // analysis.json's findings, built once by the caller (write_output_files); null: built here from the results.
  const nlohmann::json* findings = nullptr;
};

// `roofline` null (or with nothing to draw): the page says why instead of the chart.
std::string render_html_report(const app::AnalyzeResults& r, const RooflineView* roofline, const HtmlOptions& options);

// Writes `path` atomically (temporary name, then rename); throws rpl::Error(OutputFailed).
void write_html_report(const std::string& path, const app::AnalyzeResults& r, const RooflineView* roofline,
                       const HtmlOptions& options);

}  // namespace rpl::report
