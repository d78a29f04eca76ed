#include "report/api_stats_report.hpp"

#include <fmt/format.h>

#include "report/html_util.hpp"
#include "report/kernel_names.hpp"
#include "report/text_table.hpp"
#include "support/terminal_text.hpp"

namespace rpl::report {

nlohmann::json api_stats_json(const analysis::ApiStatsResult& s) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : s.calls)
    calls.push_back({{"name", c.name},        {"domain", c.category},  {"count", c.count},   {"total_ns", c.total_ns},
                     {"mean_ns", c.mean_ns},  {"p50_ns", c.p50_ns},    {"p99_ns", c.p99_ns}, {"min_ns", c.min_ns},
                     {"max_ns", c.max_ns},    {"percent", c.percent}});
  return {{"total_calls", s.total_calls},
          {"total_ns", s.total_ns},
          {"markers_excluded", s.markers_excluded},
          {"quantiles", "nearest rank"},
          {"calls", calls}};
}

namespace {
std::string us_number(double ns) { return fmt::format("{:.2f}", ns / 1e3); }

}  // namespace

std::string api_stats_terminal(const analysis::ApiStatsResult& s, std::size_t top, std::size_t width) {
  std::string out;
  out += wrap_text(fmt::format("API calls ({} calls, {:.3f} ms in all; times in us; p50/p99 nearest rank)", s.total_calls,
                               s.total_ns / 1e6),
                   width, 0, 2);
  if (s.calls.empty())
    return out + wrap_text("none recorded: the trace has no runtime or driver API calls (trace them with --preset "
                           "api-overhead)",
                           width, 2, 4);
  std::vector<TextColumn> c = {{"count", {}, 0}, {"total", {}, 0}, {"mean", {}, 1}, {"p50", {}, 3}, {"p99", {}, 2},
                               {"min", {}, 5},   {"max", {}, 4},   {"%", {}, 0},    {"domain", {}, 6, true}};
  for (std::size_t i = 0; i < s.calls.size() && i < top; ++i) {
    const auto& a = s.calls[i];
    const std::string cells[] = {std::to_string(a.count), us_number(a.total_ns), us_number(a.mean_ns), us_number(a.p50_ns), us_number(a.p99_ns),
                                 us_number(a.min_ns),            us_number(a.max_ns),   fmt::format("{:.1f}%", a.percent),
                                 one_line(a.category)};
    for (std::size_t col = 0; col < c.size(); ++col) c[col].cells.push_back(cells[col]);
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < s.calls.size() && i < top; ++i) names.push_back(one_line(s.calls[i].name));
  TextTable table(std::move(c), "call");
  const std::size_t name_width = table.fit(width, 24, longest_text(names));
  out += table.header();
  for (std::size_t i = 0; i < names.size(); ++i) out += table.row(i, shorten_middle(names[i], name_width));
  if (s.calls.size() > top) out += fitted_line(fmt::format("  ... {} more call names (--top N to show more)", s.calls.size() - top), width, 4);
  return out;
}

std::string api_stats_html(const analysis::ApiStatsResult& s, std::size_t top) {
  using html::put;
  std::string out = "<h2>API calls</h2>\n";
  put(out, "<p class=\"sub\">{} runtime and driver calls, {} in all (markers left out: {}); p50 and p99 by nearest "
           "rank.</p>\n",
      s.total_calls, html::escape(html::duration(s.total_ns)), s.markers_excluded);
  out += "<table id=\"api-stats\"><thead><tr><th class=\"name\">call</th><th>domain</th><th>count</th><th>total</th>"
         "<th>mean</th><th>p50</th><th>p99</th><th>min</th><th>max</th><th>share</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < s.calls.size() && i < top; ++i) {
    const auto& c = s.calls[i];
    put(out, "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
             "<td>{}</td><td>{}</td></tr>\n",
        html::escape(c.name), html::escape(c.category), c.count, html::duration(c.total_ns), html::duration(c.mean_ns),
        html::duration(c.p50_ns), html::duration(c.p99_ns), html::duration(c.min_ns), html::duration(c.max_ns),
        html::percent(c.percent / 100.0));
  }
  out += "</tbody></table>\n";
  if (s.calls.size() > top) put(out, "<p class=\"sub\">{} more call names not shown.</p>\n", s.calls.size() - top);
  return out;
}

}  // namespace rpl::report
