// The memory-copy and NVTX / ROCTx range summaries across the ranks of a job (analysis/trace_summaries.hpp's
// RankedCopyKind, RankedRange) in multi_rank.json, the terminal summary and multi_rank.html.
#include <fmt/format.h>

#include "report/html_util.hpp"
#include "report/kernel_names.hpp"
#include "report/multi_rank_report.hpp"
#include "report/text_table.hpp"
#include "support/terminal_text.hpp"
#include "report/units.hpp"

namespace rpl::report {
namespace {

using nlohmann::json;

}  // namespace

void add_multi_rank_summaries(json& doc, const analysis::MultiRankResult& r) {
  json copies = json::array();
  for (const auto& k : r.copy_summary) {
    const auto& c = k.total;
    copies.push_back({{"kind", c.kind}, {"ranks", k.ranks}, {"count", c.count}, {"bytes", c.bytes},
                      {"total_ns", c.total_ns}, {"min_ns", c.min_ns}, {"max_ns", c.max_ns}, {"bandwidth_gbps", c.gbps}});
  }
  doc["copy_summary"] = std::move(copies);
  json ranges = json::array();
  for (const auto& k : r.range_summary) {
    const auto& s = k.total;
    ranges.push_back({{"name", s.name}, {"ranks", k.ranks}, {"count", s.count}, {"total_ns", s.total_ns},
                      {"min_ns", s.min_ns}, {"max_ns", s.max_ns}, {"gpu_kernels", s.gpu_kernels},
                      {"gpu_copies", s.gpu_copies}, {"gpu_busy_ns", s.gpu_busy_ns}, {"gpu_span_ns", s.gpu_span_ns},
                      {"slowest_rank", k.slowest_rank}, {"slowest_mean_ns", k.slowest_mean_ns},
                      {"fastest_rank", k.fastest_rank}, {"fastest_mean_ns", k.fastest_mean_ns}});
  }
  doc["range_summary"] = std::move(ranges);
}

std::string multi_rank_summaries_terminal(const analysis::MultiRankResult& r, std::size_t width, std::size_t top) {
  std::string out;
  if (!r.copy_summary.empty()) {
    out += "\nMemory copies of every rank, by kind\n";
    std::vector<TextColumn> c = {{"ranks", {}, 1}, {"count", {}, 0}, {"MiB", {}, 0}, {"total", {}, 0},
                                 {"GB/s", {}, 0}};
    const std::size_t n = std::min(top, r.copy_summary.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto& k = r.copy_summary[i];
      c[0].cells.push_back(std::to_string(k.ranks));
      c[1].cells.push_back(std::to_string(k.total.count));
      c[2].cells.push_back(fmt::format("{:.1f}", static_cast<double>(k.total.bytes) / (1024.0 * 1024.0)));
      c[3].cells.push_back(duration_text(static_cast<double>(k.total.total_ns)));
      c[4].cells.push_back(fmt::format("{:.1f}", k.total.gbps));
    }
    std::vector<std::string> kinds;
    for (std::size_t i = 0; i < n; ++i) kinds.push_back(one_line(r.copy_summary[i].total.kind));
    TextTable table(std::move(c), "kind");
    const std::size_t name_width = table.fit(width, 26, longest_text(kinds));
    out += table.header();
    for (std::size_t i = 0; i < n; ++i) out += table.row(i, shorten_middle(kinds[i], name_width));
  }
  if (!r.range_summary.empty()) {
    out += "\n" + wrap_text("Ranges (NVTX / ROCTx) of every rank: host time, GPU busy time of the work launched "
                            "inside, and the ranks whose instances took longest and shortest (mean per instance)",
                            width, 0, 0);
    std::vector<TextColumn> c = {{"ranks", {}, 3}, {"count", {}, 2}, {"host", {}, 0}, {"GPU busy", {}, 0},
                                 {"slowest", {}, 1}, {"fastest", {}, 1}};
    const std::size_t n = std::min(top, r.range_summary.size());
    for (std::size_t i = 0; i < n; ++i) {
      const auto& k = r.range_summary[i];
      c[0].cells.push_back(std::to_string(k.ranks));
      c[1].cells.push_back(std::to_string(k.total.count));
      c[2].cells.push_back(duration_text(static_cast<double>(k.total.total_ns)));
      c[3].cells.push_back(k.total.gpu_kernels + k.total.gpu_copies ? duration_text(static_cast<double>(k.total.gpu_busy_ns))
                                                                    : std::string("-"));
      c[4].cells.push_back(fmt::format("r{} {}", k.slowest_rank, duration_text(k.slowest_mean_ns)));
      c[5].cells.push_back(fmt::format("r{} {}", k.fastest_rank, duration_text(k.fastest_mean_ns)));
    }
    std::vector<std::string> names;
    for (std::size_t i = 0; i < n; ++i) names.push_back(one_line(r.range_summary[i].total.name));
    TextTable table(std::move(c), "range");
    const std::size_t name_width = table.fit(width, 20, longest_text(names));
    out += table.header();
    for (std::size_t i = 0; i < n; ++i) out += table.row(i, shorten_middle(names[i], name_width));
    if (r.range_summary.size() > n) out += fitted_line(fmt::format("  ... {} more (multi_rank.json has them all)", r.range_summary.size() - n), width, 4);
  }
  return out;
}

std::string multi_rank_summaries_html(const analysis::MultiRankResult& r) {
  using html::duration;
  using html::escape;
  using html::put;
  std::string h = "<h2>Memory copies</h2>\n";
  if (r.copy_summary.empty()) {
    h += "<p class=\"sub\">No rank recorded a memory copy.</p>\n";
  } else {
    h += "<table id=\"copy-summary\"><thead><tr><th class=\"name\">kind</th><th>ranks</th><th>count</th><th>bytes</th>"
         "<th>total</th><th>bandwidth</th></tr></thead><tbody>\n";
    for (const auto& k : r.copy_summary)
      put(h, "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{:.1f} MiB</td><td>{}</td><td>{}</td></tr>\n",
          escape(k.total.kind), k.ranks, k.total.count, static_cast<double>(k.total.bytes) / (1024.0 * 1024.0),
          duration(static_cast<double>(k.total.total_ns)), html::bandwidth(k.total.gbps));
    h += "</tbody></table>\n";
  }
  h += "<h2>Ranges (NVTX / ROCTx)</h2>\n";
  if (r.range_summary.empty()) {
    h += "<p class=\"sub\">No rank recorded an NVTX / ROCTx range.</p>\n";
    return h;
  }
  h += "<table id=\"range-summary\"><thead><tr><th class=\"name\">range</th><th>ranks</th><th>count</th><th>host time</th>"
       "<th>GPU busy</th><th>GPU kernels</th><th>slowest rank (mean)</th><th>fastest rank (mean)</th></tr></thead>"
       "<tbody>\n";
  for (const auto& k : r.range_summary)
    put(h, "<tr><td class=\"text\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>rank {}: {}</td>"
           "<td>rank {}: {}</td></tr>\n",
        escape(k.total.name), k.ranks, k.total.count, duration(static_cast<double>(k.total.total_ns)),
        duration(static_cast<double>(k.total.gpu_busy_ns)), k.total.gpu_kernels, k.slowest_rank,
        duration(k.slowest_mean_ns), k.fastest_rank, duration(k.fastest_mean_ns));
  h += "</tbody></table>\n";
  return h;
}

}  // namespace rpl::report
