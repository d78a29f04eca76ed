#include "report/multi_rank_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/rank_summary_file.hpp"
#include "report/html_util.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::report {
namespace {
using nlohmann::json;
using namespace rpl::analysis;
using html::escape;

double ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

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
                     {"span_ms", ms(span)},
                     {"compute_ms", ms(k.compute_ns)},
                     {"communication_ms", ms(k.communication_ns)},
                     {"overlap_ms", ms(k.overlap_ns)},
                     {"collective_wait_ms", ms(k.collective_wait_ns)},
                     {"last_arrivals", k.last_arrivals},
                     {"imposed_wait_ms", ms(k.imposed_wait_ns)},
                     {"critical_path_ms", ms(k.critical_path_ns)},
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
                     {"total_wait_ms", ms(c.total_wait_ns)},
                     {"max_wait_ms", ms(c.max_wait_ns)},
                     {"real_ms", ms(c.real_ns)},
                     {"counts_differ", c.counts_differ}});
  j["collectives"] = std::move(colls);
  json st = json::array();
  for (const auto& s : r.stragglers)
    st.push_back({{"rank", s.rank},
                  {"imposed_wait_ms", ms(s.imposed_wait_ns)},
                  {"share", s.share},
                  {"last_arrivals", s.last_arrivals},
                  {"instances", s.instances},
                  {"collective", s.collective},
                  {"communicator", s.communicator},
                  {"worst_instance", s.worst_sequence},
                  {"worst_wait_ms", ms(s.worst_wait_ns)},
                  {"own_gap_ms", ms(s.own_gap_ns)},
                  {"peers_gap_ms", ms(s.peers_gap_ns)},
                  {"own_busy_ms", ms(s.own_busy_ns)},
                  {"top_kernel", s.top_kernel},
                  {"evidence", s.evidence}});
  j["stragglers"] = std::move(st);
  const CrossRankPath& p = r.critical_path;
  json steps = json::array();
  for (const auto& s : p.steps)
    steps.push_back({{"rank", s.rank},
                     {"before", s.before},
                     {"instance", s.sequence},
                     {"work_ms", ms(s.work_ns)},
                     {"top_kernel", s.top_kernel}});
  json hot = json::array();
  for (const auto& h : p.hotspots) hot.push_back({{"rank", h.rank}, {"kernel", h.kernel}, {"ms", ms(h.ns)}});
  j["critical_path"] = {{"modeled_ms", ms(p.modeled_ns)}, {"measured_ms", ms(p.measured_ns)},
                        {"joins", p.joins},          {"steps_total", p.steps_total},
                        {"steps", std::move(steps)}, {"hotspots", std::move(hot)}};
  json wi = json::array();
  for (const auto& w : r.what_if)
    wi.push_back({{"spec", w.spec}, {"baseline_ms", ms(w.baseline_ns)}, {"predicted_ms", ms(w.predicted_ns)},
                  {"speedup", w.speedup}});
  j["what_if"] = std::move(wi);
  j["matching"] = r.matching;
  j["communicators"] = communicators_json(r);
  j["findings"] = r.findings;
  j["warnings"] = r.warnings;
  return j;
}

std::string multi_rank_terminal(const MultiRankResult& r) {
  std::string out;
  out += fmt::format("Ranks: {}\n", r.ranks.size());
  TimeNs origin = 0, end = 0;
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    origin = i == 0 ? r.ranks[i].start_ns : std::min(origin, r.ranks[i].start_ns);
    end = i == 0 ? r.ranks[i].end_ns : std::max(end, r.ranks[i].end_ns);
  }
  out += fmt::format("{:>5} {:<16} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10}  timeline (# compute, = communication)\n",
                     "rank", "host", "span ms", "compute", "comm", "overlap", "wait ms", "crit. ms");
  constexpr int kWidth = 40;
  for (const auto& k : r.ranks) {
    // The rank's bins resampled onto the job's span.
    std::string bar(kWidth, ' ');
    const double job = static_cast<double>(std::max<TimeNs>(1, end - origin));
    const std::size_t n = k.compute_bins.size();
    for (std::size_t b = 0; b < n; ++b) {
      const double t = static_cast<double>(k.start_ns - origin) + (b + 0.5) * (k.end_ns - k.start_ns) / double(n);
      const auto col = static_cast<std::size_t>(std::clamp(t / job * kWidth, 0.0, kWidth - 1.0));
      if (k.communication_bins[b] > 0.5) bar[col] = '=';
      else if (k.compute_bins[b] > 0.5 && bar[col] != '=') bar[col] = '#';
      else if ((k.compute_bins[b] > 0.05 || k.communication_bins[b] > 0.05) && bar[col] == ' ') bar[col] = '.';
    }
    out += fmt::format("{:>5} {:<16} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>9.3f} {:>10.3f}  |{}|\n", k.rank,
                       k.host.substr(0, 16), ms(k.end_ns - k.start_ns), ms(k.compute_ns), ms(k.communication_ns),
                       ms(k.overlap_ns), ms(k.collective_wait_ns), ms(k.critical_path_ns), bar);
  }
  out += "\nClock offsets (per node, against the reference rank's node):\n";
  for (const auto& o : r.clock_offsets)
    out += fmt::format("  {:<20} offset {:>12.3f} us  +/- {:.3f} us  ({} samples{})\n", o.host, o.offset_ns / 1e3,
                       o.spread_ns / 1e3, o.samples, o.applied ? ", applied" : o.offset_ns == 0 ? ", reference" : "");
  out += "\nCollectives (by wait time):\n";
  std::size_t shown = 0;
  for (const auto& c : r.collectives) {
    if (++shown > 10) break;
    out += fmt::format("  {:<50} x{:<6} ranks {:<4} wait {:>10.3f} ms (max {:.3f})  real {:>9.3f} ms\n", c.key,
                       c.instances, c.ranks, ms(c.total_wait_ns), ms(c.max_wait_ns), ms(c.real_ns));
  }
  out += communicators_terminal(r);
  if (r.stragglers.empty()) {
    out += "\nStragglers: none\n";
  } else {
    out += "\nStragglers:\n";
    for (const auto& s : r.stragglers) out += fmt::format("  rank {}: {}\n", s.rank, s.evidence);
  }
  const CrossRankPath& p = r.critical_path;
  out += fmt::format("\nCritical path across ranks: {:.3f} ms modelled ({:.3f} ms measured), {} collective joins\n",
                     ms(p.modeled_ns), ms(p.measured_ns), p.joins);
  for (const auto& h : p.hotspots)
    out += fmt::format("  rank {:<4} {:>10.3f} ms  {}\n", h.rank, ms(h.ns), h.kernel.empty() ? "(no kernel: host or idle)" : h.kernel);
  for (const auto& w : r.what_if)
    out += fmt::format("What-if {}: {:.3f} ms -> {:.3f} ms ({:.2f}x)\n", w.spec, ms(w.baseline_ns), ms(w.predicted_ns),
                       w.speedup);
  for (const auto& w : r.warnings) out += fmt::format("warning: {}\n", w);
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
