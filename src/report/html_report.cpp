// report.html: the page, its tables, and the shared escaping and formatting. The roofline and the
// timeline are drawn in html_roofline.cpp and html_timeline.cpp.
#include "report/html_report.hpp"
#include "report/idle_report.hpp"
#include "report/kernel_shapes_report.hpp"
#include "report/vendor_terms.hpp"

#include <cmath>
#include <unordered_map>

#include "report/analyze_report.hpp"
#include "report/api_stats_report.hpp"
#include "report/att_report.hpp"
#include "report/html_util.hpp"
#include "report/pc_sampling_report.hpp"
#include "rpl/version.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::report {
namespace html {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid (overlong forms,
// surrogates and code points past U+10FFFF included).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

void escape_to(std::string& out, std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\n': case '\t': out += c; break;
        default:
          if (c >= 0x20 && c != 0x7F) out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
}

std::string shorten(std::string_view s, std::size_t width) {
  if (s.size() <= width) return std::string(s);
  std::size_t cut = width > 3 ? width - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return std::string(s.substr(0, cut)) + "...";
}

std::string duration(double ns) {
  double a = std::fabs(ns);
  if (a < 1e3) return fmt::format("{:.0f} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

// No external font, no external asset: system fonts only.
const char* page_style() {
  return R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1d232b;background:#f6f7f9}
main{max-width:1440px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:22px;margin:4px 0 2px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #d5d9df;padding-bottom:4px}
.sub{color:#5b6573;font-size:12.5px}
.cards{display:flex;flex-wrap:wrap;gap:8px;margin-top:12px}
.card{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:6px 12px;min-width:120px}
.card b{display:block;font-size:16px}.card span{color:#5b6573;font-size:12px}
.warn{background:#fff4e0;border:1px solid #f0b44c;border-radius:6px;padding:8px 12px;margin:10px 0}
.note{background:#eef2f7;border:1px dashed #9aa7b7;border-radius:6px;padding:14px;color:#3c4654}
table{border-collapse:collapse;background:#fff;font-size:12.5px;display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #e1e4e8;padding:3px 6px;text-align:right;white-space:nowrap}
th{background:#eef1f4;font-weight:600;white-space:normal;vertical-align:bottom}
td.name,th.name,td.text,th.text{text-align:left;white-space:normal;overflow-wrap:anywhere}
td.name,th.name{min-width:26ch;max-width:70ch}td.text,th.text{min-width:16ch}td.tag,th.tag{min-width:0;overflow-wrap:normal}
@media (max-width:1200px){td.name,th.name{min-width:20ch}}
tr.shapes td{white-space:normal;text-align:left}
td.name{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
tr.rt td.name{color:#6b7480}
.sev-warning{color:#9a5b00;font-weight:600}.sev-info{color:#2f5d9a}
svg{background:#fff;border:1px solid #dde1e6;border-radius:6px;display:block;max-width:100%;height:auto}
svg text{font-family:system-ui,"DejaVu Sans",sans-serif}
.axis{stroke:#444;stroke-width:1}.grid{stroke:#e6e8eb;stroke-width:1}
.tick{font-size:11px;fill:#4a525c}.axis-title{font-size:12px;fill:#2b323a}
.roof{fill:none;stroke-width:2}.roof.memory{stroke:#2c6fb3}.roof.compute{stroke:#b4432a}
.roof-label{font-size:11px}.roof-label.memory{fill:#2c6fb3}.roof-label.compute{fill:#b4432a}
.ridge{fill:#fff;stroke:#333;stroke-width:1.5}.ridge-drop{stroke:#777;stroke-width:1;stroke-dasharray:2 3}.ridge-label{font-size:10px;fill:#333}
.point{stroke:#fff;stroke-width:1;fill-opacity:.8}
.point.b-memory{fill:#3b82c4}.point.b-compute{fill:#e07b24}.point.b-other{fill:#7d8793}
.point.above-roof{fill:#d62728;stroke:#000;stroke-width:1.5;stroke-dasharray:3 2;fill-opacity:.85}
.point-label{font-size:10.5px;fill:#222}
.bar.b-memory{fill:#3b82c4;fill-opacity:.85}.bar-label{font-size:11px;fill:#2b323a}.bar-value{font-size:11px;fill:#2c6fb3}
ul.undrawn{font-size:12.5px;color:#3c4654;margin:4px 0}
.lane-bg{fill:#f3f4f6}.proc{font-size:12px;font-weight:600;fill:#1d232b}.lane-label{font-size:11px;fill:#3c4654}
.k0{fill:#4e79a7}.k1{fill:#f28e2b}.k2{fill:#59a14f}.k3{fill:#b07aa1}.k4{fill:#76b7b2}
.k5{fill:#edc948}.k6{fill:#ff9da7}.k7{fill:#9c755f}.k8{fill:#8cd17d}.k9{fill:#86bcb6}
.ko{fill:#a9b0b8}.cpy{fill:#556070}
.cp{fill:none;stroke:#d0021b;stroke-width:1.6}
.cp-edge{stroke:#d0021b;stroke-width:1.2;stroke-dasharray:4 2;fill:none}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:6px 0}
.legend i{display:inline-block;width:12px;height:10px;margin-right:4px;vertical-align:-1px}
)";
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

std::string rate(double gflops) {
  return gflops >= 1000 ? fmt::format("{:.1f} TFLOP/s", gflops / 1000) : fmt::format("{:.3g} GFLOP/s", gflops);
}

std::string bandwidth(double gbps) {
  return gbps >= 1000 ? fmt::format("{:.2f} TB/s", gbps / 1000) : fmt::format("{:.3g} GB/s", gbps);
}

}  // namespace html

namespace {

using html::escape;
using html::put;

constexpr std::size_t kAttKernelsInPage = 5;  // kernels with thread-trace data, and waves per kernel
constexpr std::size_t kAttWavesInPage = 64;


std::string name_cell(std::string_view name, bool runtime_kernel = false) {
  std::string cell = "<td class=\"name\" title=\"" + escape(name) + "\">" + escape(html::shorten(name, 160));
  if (runtime_kernel) cell += " <span class=\"sub\">[runtime]</span>";
  return cell + "</td>";
}

void summary_cards(std::string& out, const app::AnalyzeResults& r) {
  const auto& t = r.stats.timing;
  const auto& dag = r.dag;
  auto card = [&](const std::string& value, const char* label) {
    put(out, "<div class=\"card\"><b>{}</b><span>{}</span></div>", escape(value), label);
  };
  out += "<div class=\"cards\">";
  card(fmt::format("{} / {}", t.dispatch_count, t.copy_count), "dispatches / copies");
  card(std::to_string(t.process_count), "processes");
  card(html::duration(t.wall_span_ns), "wall span");
  card(html::duration(t.runtime_ns), "kernel time (sum)");
  card(t.wall_span_ns > 0 ? html::percent(t.gpu_busy_ns / t.wall_span_ns) : "-", "GPU busy");
  card(html::duration(dag.critical_path_ns), "critical path");
  card(fmt::format("{} + {}", html::duration(dag.critical_path_busy_ns), html::duration(dag.critical_path_idle_ns)),
       "path busy + idle");
  card(fmt::format("{:.2f}x", dag.parallelism), "parallelism");
  out += "</div>\n";
  put(out, "<p class=\"sub\">Window: {}. Idle on the path: {}.</p>\n", escape(r.window.description),
      escape(idle_breakdown_text(r.idle)));
  put(out, "<p class=\"sub\">DAG ordering: {}; edges: {} stream order, {} event wait, {} host sync, {} barrier{}{}.</p>\n",
      escape(dag.ordering), dag.edges.stream_order, dag.edges.event_wait, dag.edges.host_sync, dag.edges.barrier,
      dag.edges.inferred ? fmt::format(", {} inferred", dag.edges.inferred) : std::string(),
      dag.joins.total() ? fmt::format("; {} synchronisation join nodes", dag.joins.total()) : std::string());
  if (r.inferred_edges && dag.edges.inferred > 0)
    put(out, "<div class=\"warn\">{} cross-stream edges were <b>inferred from timing</b> (opt-in), not recorded: "
             "the critical path may follow dependencies that do not exist.</div>\n",
        dag.edges.inferred);
}

void html_kernels_table(std::string& out, const app::AnalyzeResults& r, std::size_t top) {
  std::unordered_map<std::string_view, const analysis::SymbolContribution*> on_path;
  for (const auto& c : r.dag.contributions) on_path.emplace(c.name, &c);
  out += "<h2>Top kernels by GPU time</h2>\n<table id=\"top-kernels\"><thead><tr><th>#</th><th class=\"name\">kernel</th>"
         "<th>calls</th><th>shapes</th><th>total</th><th>mean</th><th>median</th><th>min</th><th>max</th><th>share</th>"
         "<th title=\"between dispatches of one launch shape and duration class, time-weighted\">CV</th>"
         "<th>stability</th><th>on critical path</th><th>calls on path</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < top; ++i) {
    const auto& k = r.stats.kernels[i];
    const auto& d = k.durations;
    const auto* occ = i < r.occupancy.size() && r.occupancy[i].top ? &*r.occupancy[i].top : nullptr;
    auto path = on_path.find(k.name);
    const std::string arch = occ ? occ->arch : std::string();
    put(out, "<tr{}><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
             "<td>{}</td><td>{:.3f}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        k.runtime_kernel ? " class=\"rt\"" : "", i + 1, name_cell(k.name, k.runtime_kernel), d.count,
        k.shapes.size(), html::duration(d.total_ns), html::duration(d.mean_ns), html::duration(d.median_ns),
        html::duration(d.min_ns), html::duration(d.max_ns), html::percent(k.share_of_gpu_time), k.within_class_cv,
        analysis::to_string(k.stability), path != on_path.end() ? html::percent(path->second->fraction_of_path) : "-",
        path != on_path.end() ? path->second->dispatches_on_path : 0);
    if (k.shapes.size() > 1 || k.has_duration_classes) {
      const bool nvidia = is_nvidia_arch(arch);
      std::string rows;
      for (std::size_t s = 0; s < k.shapes.size() && s < 5; ++s) {
        const auto& shape = k.shapes[s];
        rows += fmt::format("<li>{} dispatches, median {}, CV {:.3f}: {}{}</li>", shape.durations.count,
                            html::duration(shape.durations.median_ns), shape.durations.cv,
                            escape(shape_text(shape, nvidia)),
                            shape.class_medians_ns.size() > 1
                                ? fmt::format("; {} duration classes, CV {:.3f} within a class",
                                              shape.class_medians_ns.size(), shape.within_class_cv)
                                : std::string());
      }
      put(out, "<tr class=\"shapes\"><td></td><td colspan=\"13\">{} shape(s); CV over all dispatches {:.3f}, within a "
               "shape {:.3f}, within a duration class {:.3f}<ul>{}</ul></td></tr>\n",
          k.shapes.size(), d.cv, k.within_shape_cv, k.within_class_cv, rows);
    }
  }
  out += "</tbody></table>\n";
  if (r.stats.kernels.size() > top)
    put(out, "<p class=\"sub\">{} more kernels not shown.</p>\n", r.stats.kernels.size() - top);
}

// The top kernels' occupancy and launch resources, a table of their own: as columns of the kernels table they
// made it 17 columns wide, which scrolled sideways below 1650 px (issue 29). Left out when no kernel has them.
void html_resources_table(std::string& out, const app::AnalyzeResults& r, std::size_t top) {
  std::string rows;
  for (std::size_t i = 0; i < r.stats.kernels.size() && i < top && i < r.occupancy.size(); ++i) {
    if (!r.occupancy[i].top) continue;
    const auto& occ = *r.occupancy[i].top;
    const auto& k = r.stats.kernels[i];
    put(rows, "<tr{}><td>{}</td>{}<td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td>"
              "<td class=\"text\">{}</td></tr>\n",
        k.runtime_kernel ? " class=\"rt\"" : "", i + 1, name_cell(k.name, k.runtime_kernel),
        html::percent(occ.occupancy.theoretical), escape(limiter_text(occ.occupancy.limiter, occ.arch)),
        escape(occupancy_text(occ.occupancy, occ.arch)),
        escape(resources_text(occ.resources.arch_vgprs, occ.resources.accum_vgprs, occ.resources.sgprs,
                              occ.resources.lds_bytes, occ.arch)));
  }
  if (rows.empty()) return;
  out += "<h2>Occupancy and launch resources</h2>\n<table id=\"kernel-resources\"><thead><tr><th>#</th>"
         "<th class=\"name\">kernel</th><th>occupancy</th><th class=\"text\">limiter</th>"
         "<th class=\"text\">resident per SM / CU</th><th class=\"text\">resources</th></tr></thead><tbody>\n";
  out += rows;
  out += "</tbody></table>\n";
}

void critical_path_table(std::string& out, const app::AnalyzeResults& r, std::size_t top) {
  const auto& dag = r.dag;
  out += "<h2>Critical-path contributors</h2>\n";
  put(out, "<p class=\"sub\">Path of {} nodes: {} = {} busy + {} idle gaps. Speeding up work off the path does not "
           "shorten the run.</p>\n",
      dag.path.size(), html::duration(dag.critical_path_ns), html::duration(dag.critical_path_busy_ns),
      html::duration(dag.critical_path_idle_ns));
  out += "<table id=\"critical-path\"><thead><tr><th class=\"name\">kernel / copy</th><th>on path</th>"
         "<th>time on path</th><th>fraction of path</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < dag.contributions.size() && i < top; ++i) {
    const auto& c = dag.contributions[i];
    put(out, "<tr>{}<td>{}</td><td>{}</td><td>{}</td></tr>\n", name_cell(c.name), c.dispatches_on_path,
        html::duration(c.time_on_path_ns), html::percent(c.fraction_of_path));
  }
  out += "</tbody></table>\n";
}

void what_if_table(std::string& out, const app::AnalyzeResults& r) {
  out += "<h2>What if</h2>\n";
  if (r.what_if.empty()) {
    out += "<p class=\"sub\">No scenario was given (<code>--what-if 'REGEX=FACTOR'</code>).</p>\n";
    return;
  }
  out += "<table id=\"what-if\"><thead><tr><th class=\"name\">scenario</th><th class=\"name\">matched kernels</th>"
         "<th>dispatches</th><th>end to end</th><th>predicted</th><th>change</th><th>speedup</th>"
         "<th>summing kernel time would claim</th></tr></thead><tbody>\n";
  for (const auto& w : r.what_if) {
    std::string kernels;
    for (std::size_t i = 0; i < w.matched_kernels.size() && i < 5; ++i)
      kernels += (i ? ", " : "") + html::shorten(w.matched_kernels[i], 80);
    if (w.matched_kernels.size() > 5) kernels += fmt::format(" and {} more", w.matched_kernels.size() - 5);
    put(out, "<tr><td class=\"text\">{}={}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
             "<td>{:.3f}x</td><td>{}</td></tr>\n",
        escape(w.spec.pattern), w.spec.factor, escape(kernels), w.matched_dispatches, html::duration(w.baseline_ns),
        html::duration(w.predicted_ns), html::duration(w.delta_ns), w.speedup, html::duration(w.naive_delta_ns));
  }
  out += "</tbody></table>\n";
}

void findings_table(std::string& out, const app::AnalyzeResults& r, const RooflineView* roofline,
                    const nlohmann::json* given) {
  nlohmann::json findings = given ? *given : analysis_findings(r);
  if (roofline)
    for (const auto& p : roofline->points)
      if (p.above_roof)
        findings.push_back({{"id", "above_roof"},
                            {"severity", "warning"},
                            {"kernel", p.kernel},
                            {"message", fmt::format("{} is measured above a roofline ceiling ({}, AI {:.3g}): its "
                                                    "counters or the peak figures are suspect",
                                                    p.kernel, html::rate(p.gflops), p.ai)},
                            {"remedy", "measure the device's ceilings (rocm-perf ceilings, then --ceilings FILE) and "
                                       "collect the counters again"}});
  out += "<h2>Findings</h2>\n";
  if (findings.empty()) {
    out += "<p class=\"sub\">No finding crossed its threshold.</p>\n";
    return;
  }
  out += "<table id=\"findings\"><thead><tr><th class=\"text tag\">severity</th><th class=\"text tag\">finding</th>"
         "<th class=\"name\">kernel</th><th class=\"text\">evidence</th><th class=\"text\">remedy</th></tr></thead>"
         "<tbody>\n";
  for (const auto& f : findings) {
    std::string severity = f.value("severity", "");
    std::string kernel = f.contains("kernel") && f["kernel"].is_string() ? f["kernel"].get<std::string>() : "";
    put(out, "<tr><td class=\"text tag sev-{}\">{}</td><td class=\"text tag\">{}</td>{}<td class=\"text\">{}</td>"
             "<td class=\"text remedy\">{}</td></tr>\n",
        escape(severity), escape(severity), escape(f.value("id", "")), kernel.empty() ? "<td></td>" : name_cell(kernel),
        escape(f.value("message", "")), escape(f.value("remedy", "")));
  }
  out += "</tbody></table>\n";
}

}  // namespace

std::string render_html_report(const app::AnalyzeResults& r, const RooflineView* roofline, const HtmlOptions& options) {
  std::string out;
  out.reserve(1 << 16);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\" />\n";
  put(out, "<title>{}</title>\n<style>{}</style></head>\n<body><main>\n", escape(options.title), html::page_style());
  put(out, "<h1>{}</h1>\n<div class=\"sub\">", escape(options.title));
  for (std::size_t i = 0; i < r.inputs.size(); ++i) put(out, "{}{}", i ? ", " : "input: ", escape(r.inputs[i]));
  put(out, "{}generated by rocm-perf {}</div>\n", r.inputs.empty() ? "" : " &#183; ", escape(kVersion));
  summary_cards(out, r);
  if (!options.kernel_filter.empty())
    put(out, "<div class=\"warn\" id=\"kernel-filter\">Kernel filter <code>--kernel '{}'</code>: every number below "
             "counts only the matching kernels.</div>\n",
        escape(options.kernel_filter));
  // Why it is slow and what to try, first (issue 29): the sections below are the evidence.
  findings_table(out, r, roofline, options.findings);

  out += "<h2>Roofline</h2>\n";
  out += html::roofline_section(roofline);
  out += "<h2>Timeline</h2>\n";
  out += html::timeline_section(r, options);

  html_kernels_table(out, r, options.top);
  html_resources_table(out, r, options.top);
  critical_path_table(out, r, options.top);
  what_if_table(out, r);
  if (r.api_stats) out += api_stats_html(*r.api_stats, options.top);
  out += att_html(r, kAttKernelsInPage, kAttWavesInPage);
  out += pc_sampling_html(r.pc_hotspots, 5);
  out += "</main></body></html>\n";
  return out;
}

void write_html_report(const std::string& path, const app::AnalyzeResults& r, const RooflineView* roofline,
                       const HtmlOptions& options) {
  std::string page = render_html_report(r, roofline, options);
  write_file_atomically(path, [&](std::FILE* f) {
    if (std::fwrite(page.data(), 1, page.size(), f) != page.size())
      throw Error(ExitCode::OutputFailed, fmt::format("cannot write {} (disk full?)", path));
  });
}

}  // namespace rpl::report
