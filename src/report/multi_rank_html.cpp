// multi_rank.html: the analysis across ranks in report.html's style (one stylesheet): summary cards, warnings,
// per-rank timelines on a time axis, the ranks, collectives, stragglers, the critical path across ranks, what-if
// and the clock offsets. Every name is escaped; the page needs no external asset.
#include <fmt/format.h>

#include <algorithm>

#include "report/html_util.hpp"
#include "report/multi_rank_report.hpp"
#include "rpl/version.hpp"

namespace rpl::report {
namespace {

using namespace rpl::analysis;
using html::duration;
using html::escape;
using html::put;

constexpr double kLabel = 90, kPlot = 1000, kAxis = 26, kRow = 18;

void cards(std::string& h, const MultiRankResult& r) {
  std::size_t instances = 0;
  TimeNs wait = 0;
  for (const auto& c : r.collectives) instances += c.instances, wait += c.total_wait_ns;
  h += "<div class=\"cards\">";
  auto card = [&](const std::string& value, const char* what) {
    put(h, "<div class=\"card\"><b>{}</b><span>{}</span></div>", escape(value), what);
  };
  card(std::to_string(r.ranks.size()), "ranks");
  card(duration(static_cast<double>(r.critical_path.measured_ns)), "job span (measured)");
  card(duration(static_cast<double>(r.critical_path.modeled_ns)), "critical path (modelled)");
  card(fmt::format("{} x {}", r.collectives.size(), instances), "collectives x instances");
  card(duration(static_cast<double>(wait)), "collective wait (all ranks)");
  card(std::to_string(r.stragglers.size()), "stragglers");
  h += "</div>\n";
}

// One row per rank: compute above, communication below, on the job's aligned time axis.
void timelines(std::string& h, const MultiRankResult& r) {
  TimeNs origin = 0, end = 1;
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    origin = i == 0 ? r.ranks[i].start_ns : std::min(origin, r.ranks[i].start_ns);
    end = i == 0 ? r.ranks[i].end_ns : std::max(end, r.ranks[i].end_ns);
  }
  const double job = static_cast<double>(std::max<TimeNs>(1, end - origin));
  const double height = kAxis + kRow * static_cast<double>(r.ranks.size()) + 6;
  h += "<h2>Per-rank timelines</h2>\n<div class=\"legend\"><span><i style=\"background:#3572b0\"></i>compute</span>"
       "<span><i style=\"background:#e8871e\"></i>communication (collective kernels, peer copies)</span>"
       "<span>time from the job's first GPU activity; clocks aligned per node</span></div>\n";
  put(h, "<svg id=\"rank-timelines\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" height=\"{1:.0f}\" "
         "preserveAspectRatio=\"xMinYMin meet\">\n",
      kLabel + kPlot + 20, height);
  html::time_axis(h, job, kLabel, kPlot / job, kAxis - 8, kAxis - 4, height - 4);
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& k = r.ranks[i];
    const double y = kAxis + static_cast<double>(i) * kRow;
    put(h, "<g class=\"rank\" data-rank=\"{}\"><text class=\"lane-label\" x=\"6\" y=\"{:.1f}\">rank {}</text>", k.rank,
        y + 13, k.rank);
    const std::size_t n = k.compute_bins.size();
    const double w = static_cast<double>(k.end_ns - k.start_ns) / double(std::max<std::size_t>(1, n)) / job * kPlot;
    for (std::size_t b = 0; b < n; ++b) {
      const double x = kLabel + static_cast<double>(k.start_ns - origin) / job * kPlot + static_cast<double>(b) * w;
      if (k.compute_bins[b] > 0)
        put(h, "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"7\" fill=\"#3572b0\" fill-opacity=\"{:.2f}\"/>",
            x, y + 2, w, k.compute_bins[b]);
      if (b < k.communication_bins.size() && k.communication_bins[b] > 0)
        put(h, "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"7\" fill=\"#e8871e\" fill-opacity=\"{:.2f}\"/>",
            x, y + 9, w, k.communication_bins[b]);
    }
    h += "</g>\n";
  }
  h += "</svg>\n";
}

void ranks_table(std::string& h, const MultiRankResult& r) {
  h += "<h2>Ranks</h2>\n<table id=\"ranks\"><thead><tr><th>rank</th><th class=\"text\">host</th><th class=\"text\">GPU"
       "</th><th>span</th><th>compute</th><th>communication</th><th>overlap</th><th>collective wait</th>"
       "<th>imposed wait</th><th>on critical path</th><th>dispatches</th></tr></thead><tbody>\n";
  for (const auto& k : r.ranks)
    put(h, "<tr><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
           "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        k.rank, escape(k.host), escape(k.gpu), duration(static_cast<double>(k.end_ns - k.start_ns)),
        duration(static_cast<double>(k.compute_ns)), duration(static_cast<double>(k.communication_ns)),
        duration(static_cast<double>(k.overlap_ns)), duration(static_cast<double>(k.collective_wait_ns)),
        duration(static_cast<double>(k.imposed_wait_ns)), duration(static_cast<double>(k.critical_path_ns)),
        k.dispatches);
  h += "</tbody></table>\n";
}

void collectives_table(std::string& h, const MultiRankResult& r) {
  h += "<h2>Collectives</h2>\n";
  if (r.collectives.empty()) {
    h += "<p class=\"sub\">No collective kernel (NCCL / RCCL) was found in the ranks' traces.</p>\n";
    return;
  }
  h += "<p class=\"sub\">By the time ranks waited in them for the last participant; \"real\" is the time after the "
       "last arrival.</p>\n<table id=\"collectives\"><thead><tr><th class=\"name\">collective</th><th>operation</th>"
       "<th>type</th><th>instances</th><th>ranks</th><th>wait (all ranks)</th><th>longest wait</th><th>real</th>"
       "</tr></thead><tbody>\n";
  for (const auto& c : r.collectives)
    put(h, "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td>"
           "<td>{}</td></tr>\n",
        escape(c.key), escape(c.info.operation), escape(c.info.data_type), c.instances,
        c.counts_differ ? " (counts differ between ranks)" : "", c.ranks, duration(static_cast<double>(c.total_wait_ns)),
        duration(static_cast<double>(c.max_wait_ns)), duration(static_cast<double>(c.real_ns)));
  h += "</tbody></table>\n";
}

void critical_path(std::string& h, const MultiRankResult& r) {
  const CrossRankPath& p = r.critical_path;
  h += "<h2>Critical path across ranks</h2>\n";
  put(h, "<p class=\"sub\">{} modelled ({} measured from the first to the last GPU activity of any rank); {} collective "
         "instances joined. Where the path spends its time:</p>\n",
      duration(static_cast<double>(p.modeled_ns)), duration(static_cast<double>(p.measured_ns)), p.joins);
  h += "<table id=\"path-hotspots\"><thead><tr><th>rank</th><th>time on path</th><th class=\"name\">kernel</th>"
       "</tr></thead><tbody>\n";
  for (const auto& s : p.hotspots)
    put(h, "<tr><td>{}</td><td>{}</td><td class=\"name\">{}</td></tr>\n", s.rank, duration(static_cast<double>(s.ns)),
        s.kernel.empty() ? "(no kernel: host or idle)" : escape(s.kernel));
  h += "</tbody></table>\n";
}

void what_if(std::string& h, const MultiRankResult& r) {
  h += "<h2>What if</h2>\n";
  if (r.what_if.empty()) {
    h += "<p class=\"sub\">No scenario was given (<code>--what-if 'REGEX=FACTOR'</code> re-times kernels and "
         "collectives across the whole job).</p>\n";
    return;
  }
  h += "<table id=\"what-if\"><thead><tr><th class=\"name\">scenario</th><th>job now</th><th>predicted</th>"
       "<th>speedup</th></tr></thead><tbody>\n";
  for (const auto& w : r.what_if)
    put(h, "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{:.3f}x</td></tr>\n", escape(w.spec),
        duration(static_cast<double>(w.baseline_ns)), duration(static_cast<double>(w.predicted_ns)), w.speedup);
  h += "</tbody></table>\n";
}

}  // namespace

std::string multi_rank_html(const MultiRankResult& r) {
  std::string h;
  h.reserve(1 << 16);
  put(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\" />\n<title>rocm-perf: {} ranks</title>\n"
         "<style>{}</style></head>\n<body><main>\n<h1>Distributed job: {} ranks</h1>\n<div class=\"sub\">generated by "
         "rocm-perf {}</div>\n",
      r.ranks.size(), html::page_style(), r.ranks.size(), escape(kVersion));
  cards(h, r);
  for (const auto& w : r.warnings) put(h, "<div class=\"warn\">{}</div>\n", escape(w));
  timelines(h, r);
  h += "<h2>Stragglers</h2>\n";
  if (r.stragglers.empty()) h += "<p class=\"sub\">None: no rank made the others wait far more than the rest.</p>\n";
  for (const auto& s : r.stragglers)
    put(h, "<p class=\"warn\" data-rank=\"{}\"><b>rank {}</b>: {}</p>\n", s.rank, s.rank, escape(s.evidence));
  ranks_table(h, r);
  collectives_table(h, r);
  h += communicators_html(r);
  critical_path(h, r);
  what_if(h, r);
  h += multi_rank_summaries_html(r);
  h += "<h2>Clock offsets</h2>\n<table id=\"clock-offsets\"><thead><tr><th class=\"name\">node</th><th>offset</th>"
       "<th>error</th><th>samples</th><th>applied</th></tr></thead><tbody>\n";
  for (const auto& o : r.clock_offsets)
    put(h, "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", escape(o.host),
        duration(static_cast<double>(o.offset_ns)), duration(static_cast<double>(o.spread_ns)), o.samples,
        o.applied ? "yes" : (o.offset_ns == 0 ? "reference" : "no"));
  h += "</tbody></table>\n</main></body></html>\n";
  return h;
}

}  // namespace rpl::report
