#include "report/att_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "report/html_util.hpp"
#include "report/text_table.hpp"
#include "support/terminal_text.hpp"

namespace rpl::report {
namespace {

// The ranked kernels whose deep analysis has ATT lines or waves, in ranking (GPU time) order.
std::vector<std::size_t> att_kernels(const app::AnalyzeResults& r) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < r.diagnosis.size() && i < r.stats.kernels.size(); ++i) {
    const auto& deep = r.diagnosis[i].deep;
    if (deep && (!deep->hot_lines.empty() || !deep->waves.empty())) out.push_back(i);
  }
  return out;
}

// Cycle counts in at most 6 characters: "812", "12.3k", "4.6M".
std::string att_cycles(double c) {
  if (c >= 1e9) return fmt::format("{:.1f}G", c / 1e9);
  if (c >= 1e6) return fmt::format("{:.1f}M", c / 1e6);
  if (c >= 1e4) return fmt::format("{:.1f}k", c / 1e3);
  return fmt::format("{:.0f}", c);
}

std::string att_percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

// "kernel.hip:42" of "/path/to/kernel.hip:42"; "" without debug line info.
std::string att_source(const std::string& source) {
  const auto slash = source.rfind('/');
  return slash == std::string::npos ? source : source.substr(slash + 1);
}

// "VMEM 61%, WAIT 30%, SALU 9%": the first `n` categories of a wave's instruction stall.
std::string stall_categories(const std::vector<analysis::NamedFraction>& shares, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < shares.size() && i < n; ++i)
    out += fmt::format("{}{} {:.0f}%", i ? ", " : "", shares[i].name, 100 * shares[i].fraction);
  return out.empty() ? "-" : out;
}

std::string wave_id(int64_t v) { return v < 0 ? "-" : std::to_string(v); }

// The waves, most stalled first (a wave without a stall fraction last); ties keep the trace's order.
std::vector<const analysis::AttWave*> most_stalled(const std::vector<analysis::AttWave>& waves) {
  std::vector<const analysis::AttWave*> out;
  for (const auto& w : waves) out.push_back(&w);
  std::stable_sort(out.begin(), out.end(), [](const analysis::AttWave* a, const analysis::AttWave* b) {
    return a->stall_fraction.value_or(-1) > b->stall_fraction.value_or(-1);
  });
  return out;
}

// Text cut to `width` with "..." at the end.
std::string cut(std::string text, std::size_t width) {
  if (text.size() > width) text = text.substr(0, width > 3 ? width - 3 : 0) + "...";
  return text;
}

void hot_lines_text(std::string& out, const analysis::DeepAnalysis& d, std::size_t rows, std::size_t width) {
  const std::size_t n = std::min(rows, d.hot_lines.size());
  std::vector<TextColumn> c = {{"share", {}, 0},          {"hits", {}, 1},   {"latency", {}, 3}, {"stall", {}, 0},
                               {"idle", {}, 4},           {"category", {}, 0, true}, {"source", {}, 2, true}};
  for (std::size_t i = 0; i < n; ++i) {
    const auto& l = d.hot_lines[i];
    const std::string cells[] = {att_percent(l.share), std::to_string(l.hits), att_cycles(l.latency),
                                 att_cycles(l.stall),  att_cycles(l.idle),     analysis::to_string(l.category),
                                 cut(one_line(att_source(l.source)), 28)};
    for (std::size_t col = 0; col < c.size(); ++col) c[col].cells.push_back(cells[col]);
  }
  std::vector<std::string> isa;
  for (std::size_t i = 0; i < n; ++i) isa.push_back(one_line(d.hot_lines[i].isa));
  TextTable table(std::move(c), "instruction", 4);
  const std::size_t isa_width = table.fit(width, 24, longest_text(isa));
  out += wrap_text(fmt::format("its {} costliest ISA lines of {} (share: of the listing's latency + idle cycles; "
                               "cycles summed over the executions on the traced CUs)",
                               n, d.hot_lines.size()),
                   width, 4, 6);
  out += table.header();
  for (std::size_t i = 0; i < n; ++i) out += table.row(i, cut(isa[i], isa_width));
}

void waves_text(std::string& out, const analysis::DeepAnalysis& d, std::size_t rows, std::size_t width) {
  const auto waves = most_stalled(d.waves);
  const std::size_t n = std::min(rows, waves.size());
  std::vector<TextColumn> c = {{"SE", {}, 2},     {"CU", {}, 0},     {"SIMD", {}, 2}, {"slot", {}, 3},
                               {"wave", {}, 3},   {"cycles", {}, 1}, {"stall", {}, 0}, {"instrs", {}, 4}};
  for (std::size_t i = 0; i < n; ++i) {
    const auto& w = *waves[i];
    const std::string cells[] = {wave_id(w.shader_engine), wave_id(w.cu),
                                 wave_id(w.simd),          wave_id(w.slot),
                                 wave_id(w.id),            att_cycles(w.end - w.begin),
                                 w.stall_fraction ? att_percent(*w.stall_fraction) : "-", std::to_string(w.instructions)};
    for (std::size_t col = 0; col < c.size(); ++col) c[col].cells.push_back(cells[col]);
  }
  std::vector<std::string> stalls;
  for (std::size_t i = 0; i < n; ++i) stalls.push_back(stall_categories(waves[i]->stall_by_category, 3));
  TextTable table(std::move(c), "stall by category", 4);
  const std::size_t rest = table.fit(width, 24, longest_text(stalls));
  out += wrap_text(fmt::format("its {} most stalled of {} traced waves (stall: (WAIT + STALL) / wave time)", n,
                               d.waves.size()),
                   width, 4, 6);
  out += table.header();
  for (std::size_t i = 0; i < n; ++i) out += table.row(i, cut(stalls[i], rest));
}

}  // namespace

std::string att_terminal(const app::AnalyzeResults& r, const KernelNames& names, std::size_t max_kernels,
                         std::size_t rows, std::size_t width) {
  const auto kernels = att_kernels(r);
  if (kernels.empty()) return "";
  std::string out = "\n";
  out += wrap_text("Thread trace (ATT): where the traced kernels' cycles go (every line and wave in analysis.json)",
                   width, 0, 2);
  for (std::size_t n = 0; n < kernels.size(); ++n) {
    if (n == max_kernels) {
      out += fitted_line(fmt::format("  ... {} more traced kernel(s) (--top N to show more)", kernels.size() - n), width, 4);
      break;
    }
    const std::size_t k = kernels[n];
    const auto& d = *r.diagnosis[k].deep;
    out += wrap_text(names(r.stats.kernels[k].name), width, 2, 4);
    if (!d.hot_lines.empty()) hot_lines_text(out, d, rows, width);
    if (!d.waves.empty()) waves_text(out, d, rows, width);
  }
  return out;
}

std::string att_html(const app::AnalyzeResults& r, std::size_t max_kernels, std::size_t max_waves) {
  using html::escape;
  using html::put;
  const auto kernels = att_kernels(r);
  if (kernels.empty()) return "";
  std::string out = "<h2>Thread trace (ATT)</h2>\n<p class=\"sub\">Each kernel's costliest ISA lines (share of the "
                    "listing's latency + idle cycles, summed over the executions on the traced CUs) and its traced "
                    "waves, most stalled first (stall: (WAIT + STALL) / wave time). analysis.json has every line and "
                    "wave.</p>\n";
  for (std::size_t n = 0; n < kernels.size() && n < max_kernels; ++n) {
    const std::size_t k = kernels[n];
    const auto& d = *r.diagnosis[k].deep;
    const std::string& name = r.stats.kernels[k].name;
    put(out, "<h3 title=\"{}\">{}</h3>\n", escape(name), escape(html::shorten(name, 120)));
    if (!d.hot_lines.empty()) {
      out += "<table class=\"att-lines\"><thead><tr><th>share</th><th>hits</th><th>latency cycles</th>"
             "<th>stall cycles</th><th>idle cycles</th><th class=\"text tag\">category</th>"
             "<th class=\"text\">instruction</th><th class=\"text\">source</th></tr></thead><tbody>\n";
      for (const auto& l : d.hot_lines)
        put(out, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text tag\">{}</td>"
                 "<td class=\"text\"><code>{}</code></td><td class=\"text\">{}</td></tr>\n",
            html::percent(l.share), l.hits, att_cycles(l.latency), att_cycles(l.stall), att_cycles(l.idle),
            analysis::to_string(l.category), escape(l.isa), escape(att_source(l.source)));
      out += "</tbody></table>\n";
    }
    if (d.waves.empty()) continue;
    const auto waves = most_stalled(d.waves);
    const std::size_t shown = std::min(max_waves, waves.size());
    out += "<table class=\"att-waves\"><thead><tr><th>SE</th><th>CU</th><th>SIMD</th><th>slot</th><th>wave</th>"
           "<th>cycles</th><th>idle cycles</th><th>exec cycles</th><th>wait cycles</th><th>stall cycles</th>"
           "<th>stall share</th>"
           "<th>instructions</th><th class=\"text\">instruction stall by category</th></tr></thead><tbody>\n";
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& w = *waves[i];
      put(out, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
               "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}</td></tr>\n",
          wave_id(w.shader_engine), wave_id(w.cu), wave_id(w.simd), wave_id(w.slot), wave_id(w.id),
          att_cycles(w.end - w.begin), att_cycles(w.state_cycles[1]), att_cycles(w.state_cycles[2]),
          att_cycles(w.state_cycles[3]), att_cycles(w.state_cycles[4]),
          w.stall_fraction ? html::percent(*w.stall_fraction) : "-", w.instructions,
          escape(stall_categories(w.stall_by_category, w.stall_by_category.size())));
    }
    out += "</tbody></table>\n";
    if (waves.size() > shown)
      put(out, "<p class=\"sub\">{} more waves, less stalled, in analysis.json.</p>\n", waves.size() - shown);
  }
  if (kernels.size() > max_kernels)
    put(out, "<p class=\"sub\">{} more traced kernel(s) in analysis.json.</p>\n", kernels.size() - max_kernels);
  return out;
}

}  // namespace rpl::report
