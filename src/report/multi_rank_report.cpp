#include "report/multi_rank_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/rank_summary_file.hpp"
#include "report/html_util.hpp"
#include "report/kernel_names.hpp"
#include "report/text_table.hpp"
#include "support/terminal_text.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "report/units.hpp"

namespace rpl::report {
namespace {
using nlohmann::json;
using namespace rpl::analysis;
using html::escape;

}  // namespace

json multi_rank_document(const MultiRankResult& r) {
  json j;
  j["schema_version"] = kMultiRankSchemaVersion;
  json ranks = json::array();
  for (const auto& k : r.ranks) {
    json calls = json::object();
    for (const auto& [c, n] : k.nccl_calls) calls[c] = n;
    const TimeNs span = k.end_ns - k.start_ns;
    ranks.push_back({{"rank", k.rank},
                     {"rank_recorded", k.rank_recorded},
                     {"local_rank", k.local_rank},
                     {"host", k.host},
                     {"gpu", k.gpu},
                     {"pid", k.pid},
                     {"source_file", k.source_file},
                     {"start_ns", k.start_ns},
                     {"end_ns", k.end_ns},
                     {"span_ms", to_ms(span)},
                     {"compute_ms", to_ms(k.compute_ns)},
                     {"communication_ms", to_ms(k.communication_ns)},
                     {"overlap_ms", to_ms(k.overlap_ns)},
                     {"kernel_time_ms", to_ms(k.kernel_time_ns)},
                     {"collective_wait_ms", to_ms(k.collective_wait_ns)},
                     {"last_arrivals", k.last_arrivals},
                     {"imposed_wait_ms", to_ms(k.imposed_wait_ns)},
                     {"critical_path_ms", to_ms(k.critical_path_ns)},
                     {"dispatches", k.dispatches},
                     {"collective_kernels", k.collective_kernels},
                     {"peer_copies", k.peer_copies},
                     {"peer_copy_bytes", k.peer_copy_bytes},
                     {"nccl_calls", calls},
                     {"compute_bins", app::rounded_bins_json(k.compute_bins)},
                     {"communication_bins", app::rounded_bins_json(k.communication_bins)}});
  }
  j["ranks"] = std::move(ranks);
  json offsets = json::array();
  for (const auto& o : r.clock_offsets)
    offsets.push_back({{"host", o.host},
                       {"reference_rank", o.reference_rank},
                       {"offset_ns", o.offset_ns},
                       {"spread_ns", o.spread_ns},
                       {"samples", o.samples},
                       {"applied", o.applied}});
  j["clock_offsets"] = std::move(offsets);
  json colls = json::array();
  for (const auto& c : r.collectives)
    colls.push_back({{"kernel", c.key},
                     {"communicator", c.communicator},
                     {"operation", c.info.operation},
                     {"reduce_op", c.info.reduce_op},
                     {"data_type", c.info.data_type},
                     {"algorithm", c.info.algorithm},
                     {"protocol", c.info.protocol},
                     {"instances", c.instances},
                     {"ranks", c.ranks},
                     {"total_wait_ms", to_ms(c.total_wait_ns)},
                     {"max_wait_ms", to_ms(c.max_wait_ns)},
                     {"real_ms", to_ms(c.real_ns)},
                     {"counts_differ", c.counts_differ}});
  j["collectives"] = std::move(colls);
  json st = json::array();
  for (const auto& s : r.stragglers)
    st.push_back({{"rank", s.rank},
                  {"imposed_wait_ms", to_ms(s.imposed_wait_ns)},
                  {"share", s.share},
                  {"last_arrivals", s.last_arrivals},
                  {"instances", s.instances},
                  {"collective", s.collective},
                  {"communicator", s.communicator},
                  {"worst_instance", s.worst_sequence},
                  {"worst_wait_ms", to_ms(s.worst_wait_ns)},
                  {"own_gap_ms", to_ms(s.own_gap_ns)},
                  {"peers_gap_ms", to_ms(s.peers_gap_ns)},
                  {"own_busy_ms", to_ms(s.own_busy_ns)},
                  {"top_kernel", s.top_kernel},
                  {"evidence", s.evidence}});
  j["stragglers"] = std::move(st);
  const CrossRankPath& p = r.critical_path;
  json steps = json::array();
  for (const auto& s : p.steps)
    steps.push_back({{"rank", s.rank},
                     {"before", s.before},
                     {"instance", s.sequence},
                     {"work_ms", to_ms(s.work_ns)},
                     {"top_kernel", s.top_kernel}});
  json hot = json::array();
  for (const auto& h : p.hotspots) hot.push_back({{"rank", h.rank}, {"kernel", h.kernel}, {"ms", to_ms(h.ns)}});
  j["critical_path"] = {{"modeled_ms", to_ms(p.modeled_ns)}, {"measured_ms", to_ms(p.measured_ns)},
                        {"joins", p.joins},          {"steps_total", p.steps_total},
                        {"steps", std::move(steps)}, {"hotspots", std::move(hot)}};
  json wi = json::array();
  for (const auto& w : r.what_if)
    wi.push_back({{"spec", w.spec}, {"baseline_ms", to_ms(w.baseline_ns)}, {"predicted_ms", to_ms(w.predicted_ns)},
                  {"speedup", w.speedup}});
  j["what_if"] = std::move(wi);
  j["matching"] = r.matching;
  j["communicators"] = communicators_json(r);
  j["findings"] = r.findings;
  j["warnings"] = r.warnings;
  add_multi_rank_summaries(j, r);
  return j;
}

std::string multi_rank_terminal(const MultiRankResult& r, std::size_t width) {
  std::string out;
  out += wrap_text(fmt::format("Ranks: {} (timeline: # compute, = communication, . some activity)", r.ranks.size()), width, 0, 2);
  TimeNs origin = 0, end = 0;
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    origin = i == 0 ? r.ranks[i].start_ns : std::min(origin, r.ranks[i].start_ns);
    end = i == 0 ? r.ranks[i].end_ns : std::max(end, r.ranks[i].end_ns);
  }
  // Numbers first, the timeline last in the width they leave; a narrow terminal drops the least telling columns.
  std::vector<TextColumn> c = {{"rank", {}, 0},    {"host", {}, 4, true}, {"span ms", {}, 3}, {"compute", {}, 2},
                               {"comm", {}, 2},    {"overlap", {}, 5},    {"wait ms", {}, 0}, {"crit. ms", {}, 1}};
  for (const auto& k : r.ranks) {
    const std::string cells[] = {std::to_string(k.rank), one_line(k.host.substr(0, 16)),
                                 fmt::format("{:.3f}", to_ms(k.end_ns - k.start_ns)), fmt::format("{:.3f}", to_ms(k.compute_ns)),
                                 fmt::format("{:.3f}", to_ms(k.communication_ns)), fmt::format("{:.3f}", to_ms(k.overlap_ns)),
                                 fmt::format("{:.3f}", to_ms(k.collective_wait_ns)),
                                 fmt::format("{:.3f}", to_ms(k.critical_path_ns))};
    for (std::size_t col = 0; col < c.size(); ++col) c[col].cells.push_back(cells[col]);
  }
  TextTable table(std::move(c), "timeline", 0);
  const int kWidth = static_cast<int>(std::clamp<std::size_t>(table.fit(width, 22), 20, 60)) - 2;
  out += table.header();
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& k = r.ranks[i];
    // The rank's bins resampled onto the job's span.
    std::string bar(static_cast<std::size_t>(kWidth), ' ');
    const double job = static_cast<double>(std::max<TimeNs>(1, end - origin));
    const std::size_t n = k.compute_bins.size();
    for (std::size_t b = 0; b < n; ++b) {
      const double t = static_cast<double>(k.start_ns - origin) + (b + 0.5) * (k.end_ns - k.start_ns) / double(n);
      const auto col = static_cast<std::size_t>(std::clamp(t / job * kWidth, 0.0, kWidth - 1.0));
      if (k.communication_bins[b] > 0.5) bar[col] = '=';
      else if (k.compute_bins[b] > 0.5 && bar[col] != '=') bar[col] = '#';
      else if ((k.compute_bins[b] > 0.05 || k.communication_bins[b] > 0.05) && bar[col] == ' ') bar[col] = '.';
    }
    out += table.row(i, "|" + bar + "|");
  }
  out += "\n" + wrap_text("Clock offsets (per node, against the reference rank's node):", width, 0, 2);
  for (const auto& o : r.clock_offsets)
    out += wrap_text(fmt::format("{:<16} offset {:>10.3f} us +/- {:.3f} us ({} samples{})", one_line(o.host),
                                 o.offset_ns / 1e3, o.spread_ns / 1e3, o.samples,
                                 o.applied ? ", applied" : o.offset_ns == 0 ? ", reference" : ""),
                     width, 2, 4);
  out += "\nCollectives (by wait time):\n";
  std::size_t shown = 0;
  for (const auto& c : r.collectives) {
    if (++shown > 10) break;
    out += wrap_text(fmt::format("{}: x{} on {} ranks, wait {:.3f} ms (max {:.3f}), real {:.3f} ms",
                                 shorten_middle(one_line(c.key), std::max<std::size_t>(width, 40) - 36), c.instances,
                                 c.ranks, to_ms(c.total_wait_ns), to_ms(c.max_wait_ns), to_ms(c.real_ns)),
                     width, 2, 6);
  }
  out += communicators_terminal(r, width);
  if (r.stragglers.empty()) {
    out += "\nStragglers: none\n";
  } else {
    out += "\nStragglers:\n";
    for (const auto& s : r.stragglers) out += wrap_text(fmt::format("rank {}: {}", s.rank, one_line(s.evidence)), width, 2, 4);
  }
  const CrossRankPath& p = r.critical_path;
  out += "\n" + wrap_text(fmt::format("Critical path across ranks: {:.3f} ms modelled ({:.3f} ms measured), {} "
                                      "collective joins",
                                      to_ms(p.modeled_ns), to_ms(p.measured_ns), p.joins),
                          width, 0, 2);
  for (const auto& h : p.hotspots)
    out += fitted_line(fmt::format("  rank {:<4} {:>10.3f} ms  {}", h.rank, to_ms(h.ns),
                                   h.kernel.empty() ? std::string("(no kernel: host or idle)")
                                                    : shorten_middle(one_line(h.kernel), std::max<std::size_t>(width, 40) - 28)),
                       width, 6);
  for (const auto& w : r.what_if)
    out += wrap_text(fmt::format("What-if {}: {:.3f} ms -> {:.3f} ms ({:.2f}x)", one_line(w.spec), to_ms(w.baseline_ns),
                                 to_ms(w.predicted_ns), w.speedup),
                     width, 0, 2);
  out += multi_rank_summaries_terminal(r, width);
  for (const auto& w : r.warnings) out += wrap_text("warning: " + one_line(w), width, 0, 2);
  return out;
}

json write_multi_rank_files(const std::string& dir, const MultiRankResult& r, bool html) {
  const json doc = multi_rank_document(r);
  write_file_atomically(dir + "/multi_rank.json", [&](std::FILE* f) {
    std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fputc('\n', f);
  });
  if (html)
    write_file_atomically(dir + "/multi_rank.html", [&](std::FILE* f) {
      std::string h = multi_rank_html(r);
      std::fwrite(h.data(), 1, h.size(), f);
    });
  return doc;
}

}  // namespace rpl::report
