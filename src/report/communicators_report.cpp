// The per-communicator part of the analysis across ranks (analysis/multi_rank.hpp CommunicatorReport) in
// each output format of multi_rank_report.hpp.
#include <fmt/core.h>
#include <fmt/format.h>

#include "report/html_util.hpp"
#include "report/multi_rank_report.hpp"
#include "report/text_table.hpp"
#include "report/units.hpp"

namespace rpl::report {
namespace {
using nlohmann::json;
using namespace rpl::analysis;


std::string ranks_text(const std::vector<int64_t>& ranks) {
  std::vector<std::string> v;
  for (int64_t r : ranks) v.push_back(std::to_string(r));
  return fmt::format("{}", fmt::join(v, ","));
}

std::string peak_text(const CommunicatorReport& c) {
  if (c.link_peak_gb_per_s > 0) return fmt::format("{} {:.1f} GB/s", c.link_kind, c.link_peak_gb_per_s);
  return c.link_kind.empty() ? "link peak not recorded" : c.link_kind + ", peak not recorded";
}

}  // namespace

json communicators_json(const MultiRankResult& r) {
  json out = json::array();
  for (const auto& c : r.communicators) {
    json ops = json::array();
    for (const auto& o : c.operations)
      ops.push_back({{"operation", o.operation},
                     {"data_type", o.data_type},
                     {"algorithm", o.algorithm},
                     {"protocol", o.protocol},
                     {"instances", o.instances},
                     {"bytes_min", o.bytes_min},
                     {"bytes_max", o.bytes_max},
                     {"bytes_total", o.bytes_total},
                     {"real_ms", to_ms(o.real_ns)},
                     {"wait_ms", to_ms(o.wait_ns)},
                     {"bus_factor", o.bus_factor},
                     {"algbw_gb_per_s", o.algbw_gb_per_s},
                     {"busbw_gb_per_s", o.busbw_gb_per_s},
                     {"busbw_median_gb_per_s", o.busbw_median_gb_per_s},
                     {"link_share", o.link_share}});
    out.push_back({{"id", c.id},
                   {"size", c.size},
                   {"ranks", c.ranks},
                   {"instances", c.instances},
                   {"wait_ms", to_ms(c.wait_ns)},
                   {"real_ms", to_ms(c.real_ns)},
                   {"link_kind", c.link_kind},
                   {"link_peak_gb_per_s", c.link_peak_gb_per_s},
                   {"operations", std::move(ops)},
                   {"straggler", c.straggler},
                   {"straggler_imposed_wait_ms", to_ms(c.straggler_imposed_ns)},
                   {"findings", c.findings}});
  }
  return out;
}

std::string communicators_terminal(const MultiRankResult& r, std::size_t width) {
  if (r.communicators.empty()) return "";
  std::string out = "\n" + wrap_text(fmt::format("Communicators (instances matched {}; bus bandwidth as nccl-tests defines it):",
                                                 r.matching == "communicator" ? "per communicator" : "per communicator where recorded"),
                                     width, 0, 2);
  for (const auto& c : r.communicators) {
    out += fitted_line(fmt::format("  {}  ranks {:<12} {} of {} traced, {}, wait {:.3f} ms{}", c.id, ranks_text(c.ranks),
                                   c.ranks.size(), c.size, peak_text(c), to_ms(c.wait_ns),
                                   c.straggler >= 0 ? fmt::format(", straggler rank {}", c.straggler) : ""),
                       width, 6);
    for (const auto& o : c.operations)
      out += fitted_line(fmt::format("    {:<14} x{:<6} {:>12} B/call {:<5} {:<6} {:<6} algbw {:>7.1f}  busbw {:>7.1f} GB/s "
                                     "(median {:.1f}){}",
                                     o.operation, o.instances, o.bytes_max, o.data_type, o.algorithm, o.protocol,
                                     o.algbw_gb_per_s, o.busbw_gb_per_s, o.busbw_median_gb_per_s,
                                     o.link_share > 0 ? fmt::format("  {:.0f}% of peak", 100 * o.link_share) : ""),
                         width, 8);
    for (const auto& f : c.findings) out += fitted_line("    finding: " + f, width, 6);
  }
  for (const auto& f : r.findings) out += fitted_line("  finding: " + f, width, 4);
  return out;
}

std::string communicators_html(const MultiRankResult& r) {
  if (r.communicators.empty()) return "";
  std::string h = "<h2>Communicators</h2>\n<p class=\"sub\">Bus bandwidth as nccl-tests defines it (size / time x "
                  "2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast, reduce, "
                  "send/recv), timed from the last member's arrival, against the link peak the collector recorded "
                  "(per direction).</p>\n<table id=\"communicators\"><thead><tr><th class=\"name\">communicator</th>"
                  "<th>ranks</th><th class=\"name\">link peak</th><th class=\"name\">operation</th><th>calls</th>"
                  "<th>bytes/call</th><th class=\"name\">algorithm</th><th>algbw GB/s</th><th>busbw GB/s</th>"
                  "<th>of peak</th><th>wait ms</th><th>straggler</th></tr></thead><tbody>\n";
  for (const auto& c : r.communicators)
    for (const auto& o : c.operations)
      h += fmt::format("<tr><td class=\"name\">{}</td><td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td>"
                       "<td>{}</td><td>{}</td><td class=\"name\">{} {}</td><td>{:.1f}</td><td>{:.1f}</td><td>{}</td>"
                       "<td>{:.3f}</td><td>{}</td></tr>\n",
                       html::escape(c.id), ranks_text(c.ranks), html::escape(peak_text(c)), html::escape(o.operation),
                       o.instances, o.bytes_max, html::escape(o.algorithm), html::escape(o.protocol), o.algbw_gb_per_s,
                       o.busbw_gb_per_s, o.link_share > 0 ? fmt::format("{:.0f}%", 100 * o.link_share) : "-",
                       to_ms(o.wait_ns), c.straggler >= 0 ? std::to_string(c.straggler) : "-");
  h += "</tbody></table>\n";
  for (const auto& c : r.communicators)
    for (const auto& f : c.findings) h += fmt::format("<p class=\"warn\">{}</p>\n", html::escape(f));
  for (const auto& f : r.findings) h += fmt::format("<p class=\"warn\"><b>{}</b></p>\n", html::escape(f));
  return h;
}

}  // namespace rpl::report
