#include "report/multi_rank_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "report/html_util.hpp"
#include "support/errors.hpp"
#include "support/json_integer.hpp"

namespace rpl::report {
namespace {
using nlohmann::json;
using namespace rpl::analysis;
using html::escape;

double ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

json bins_json(const std::vector<float>& bins) {
  json a = json::array();
  for (float f : bins) a.push_back(std::round(f * 1000) / 1000);
  return a;
}

std::vector<float> bins_from(const json& j) {
  std::vector<float> out;
  for (const auto& v : j) out.push_back(v.get<float>());
  return out;
}

json summary_json(const RankSummary& s) {
  json j;
  j["rank"] = s.identity.rank;
  j["local_rank"] = s.identity.local_rank;
  j["world_size"] = s.identity.world_size;
  j["rank_source"] = s.identity.source;
  j["visible_devices"] = s.identity.visible_devices;
  j["host"] = s.host;
  j["pid"] = s.pid;
  j["gpu"] = s.gpu;
  j["source_file"] = s.source_file;
  j["first_start_ns"] = s.first_start;
  j["last_end_ns"] = s.last_end;
  j["compute_ns"] = s.compute_ns;
  j["communication_ns"] = s.communication_ns;
  j["overlap_ns"] = s.overlap_ns;
  j["dispatches"] = s.dispatches;
  j["collective_kernels"] = s.collective_kernels;
  j["peer_copies"] = s.peer_copies;
  j["peer_copy_bytes"] = s.peer_copy_bytes;
  j["names"] = s.names;
  json c = json::array();  // [key, sequence, start, end]: compact, there may be many
  for (const auto& a : s.collectives) c.push_back({a.key, a.sequence, a.start, a.end});
  j["collectives"] = std::move(c);
  json g = json::array();  // [busy, top kernel, top kernel ns, [saved per scenario]]
  for (const auto& w : s.segments) g.push_back({w.busy_ns, w.top_kernel, w.top_kernel_ns, w.saved_ns});
  j["segments"] = std::move(g);
  j["what_if"] = s.what_if;
  json calls = json::object();
  for (const auto& [k, v] : s.nccl_calls) calls[k] = v;
  j["nccl_calls"] = std::move(calls);
  j["compute_bins"] = bins_json(s.compute_bins);
  j["communication_bins"] = bins_json(s.communication_bins);
  return j;
}

RankSummary summary_from(const json& j) {
  RankSummary s;
  auto i64 = [](const json& v, const char* what) { return json_integer_or_throw<int64_t>(v, what); };
  auto u64 = [](const json& v, const char* what) { return json_integer_or_throw<uint64_t>(v, what); };
  auto u32 = [](const json& v, const char* what) { return json_integer_or_throw<uint32_t>(v, what); };
  auto times = [&](const json& a) {
    std::vector<TimeNs> out;
    for (const json& t : a) out.push_back(i64(t, "segment time"));
    return out;
  };
  s.identity.rank = i64(j.at("rank"), "rank");
  s.identity.local_rank = i64(j.at("local_rank"), "local_rank");
  s.identity.world_size = i64(j.at("world_size"), "world_size");
  s.identity.source = j.at("rank_source").get<std::string>();
  s.identity.visible_devices = j.at("visible_devices").get<std::string>();
  s.host = j.at("host").get<std::string>();
  s.pid = i64(j.at("pid"), "pid");
  s.gpu = j.at("gpu").get<std::string>();
  s.source_file = j.at("source_file").get<std::string>();
  s.first_start = i64(j.at("first_start_ns"), "first_start_ns");
  s.last_end = i64(j.at("last_end_ns"), "last_end_ns");
  s.compute_ns = i64(j.at("compute_ns"), "compute_ns");
  s.communication_ns = i64(j.at("communication_ns"), "communication_ns");
  s.overlap_ns = i64(j.at("overlap_ns"), "overlap_ns");
  s.dispatches = u64(j.at("dispatches"), "dispatches");
  s.collective_kernels = u64(j.at("collective_kernels"), "collective_kernels");
  s.peer_copies = u64(j.at("peer_copies"), "peer_copies");
  s.peer_copy_bytes = u64(j.at("peer_copy_bytes"), "peer_copy_bytes");
  s.names = j.at("names").get<std::vector<std::string>>();
  if (s.names.empty() || !s.names[0].empty()) throw std::out_of_range("names must start with \"\"");
  auto name_ok = [&](uint32_t id) {
    if (id >= s.names.size()) throw std::out_of_range(fmt::format("name id {} out of range", id));
    return id;
  };
  for (const auto& c : j.at("collectives"))
    s.collectives.push_back({name_ok(u32(c.at(0), "collectives[…][0]")), u32(c.at(1), "collectives[…][1]"), i64(c.at(2), "collectives[…][2]"),
                             i64(c.at(3), "collectives[…][3]")});
  for (const auto& g : j.at("segments"))
    s.segments.push_back({i64(g.at(0), "segments[…][0]"), name_ok(u32(g.at(1), "segments[…][1]")), i64(g.at(2), "segments[…][2]"),
                          times(g.at(3))});
  if (s.segments.size() != s.collectives.size() + 1)
    throw std::out_of_range("segments must number collectives + 1");
  s.what_if = j.at("what_if").get<std::vector<std::string>>();
  for (const auto& [k, v] : j.at("nccl_calls").items()) s.nccl_calls.emplace_back(k, u64(v, "nccl_calls"));
  s.compute_bins = bins_from(j.at("compute_bins"));
  s.communication_bins = bins_from(j.at("communication_bins"));
  return s;
}

}  // namespace

json rank_summaries_document(const std::vector<RankSummary>& summaries) {
  json j;
  j["schema_version"] = kRankSummarySchemaVersion;
  j["kind"] = "rocm-perf rank summary";
  j["ranks"] = json::array();
  for (const auto& s : summaries) j["ranks"].push_back(summary_json(s));
  return j;
}

std::vector<RankSummary> rank_summaries_from_document(const json& doc, const std::string& file) {
  try {
    if (doc.value("kind", "") != "rocm-perf rank summary")
      throw std::invalid_argument("not a rank summary (written by rocm-perf analyze --rank-summary)");
    if (doc.value("schema_version", "") != kRankSummarySchemaVersion)
      throw std::invalid_argument(fmt::format("schema_version {} (this rocm-perf reads {})",
                                              doc.value("schema_version", "?"), kRankSummarySchemaVersion));
    std::vector<RankSummary> out;
    for (const auto& r : doc.at("ranks")) out.push_back(summary_from(r));
    return out;
  } catch (const std::exception& e) {
    throw Error(ExitCode::InputInvalid, fmt::format("{}: {}", file, e.what()));
  }
}

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
                     {"compute_bins", bins_json(k.compute_bins)},
                     {"communication_bins", bins_json(k.communication_bins)}});
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

std::string multi_rank_html(const MultiRankResult& r) {
  std::string h = "<!doctype html><html><head><meta charset=\"utf-8\"><title>rocm-perf: ranks</title><style>"
                  "body{font-family:sans-serif}td,th{padding:2px 8px;text-align:right}</style></head><body>";
  h += fmt::format("<h1>{} ranks</h1>", r.ranks.size());
  TimeNs origin = 0, end = 1;
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    origin = i == 0 ? r.ranks[i].start_ns : std::min(origin, r.ranks[i].start_ns);
    end = i == 0 ? r.ranks[i].end_ns : std::max(end, r.ranks[i].end_ns);
  }
  const double job = static_cast<double>(std::max<TimeNs>(1, end - origin));
  constexpr int kW = 1000, kRow = 18;
  h += fmt::format("<h2>Per-rank timelines</h2><p>blue: compute, orange: communication (collective kernels, peer "
                   "copies); clocks aligned</p><svg width=\"{}\" height=\"{}\">",
                   kW + 80, kRow * r.ranks.size() + 4);
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& k = r.ranks[i];
    const double y = static_cast<double>(i * kRow);
    h += fmt::format("<text x=\"0\" y=\"{}\" font-size=\"12\">rank {}</text>", y + 13, k.rank);
    const std::size_t n = k.compute_bins.size();
    const double w = (k.end_ns - k.start_ns) / double(std::max<std::size_t>(1, n)) / job * kW;
    for (std::size_t b = 0; b < n; ++b) {
      const double x = 80 + (static_cast<double>(k.start_ns - origin) / job * kW) + b * w;
      if (k.compute_bins[b] > 0)
        h += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"7\" fill=\"#3572b0\" "
                         "fill-opacity=\"{:.2f}\"/>",
                         x, y + 2, w, k.compute_bins[b]);
      if (k.communication_bins[b] > 0)
        h += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"7\" fill=\"#e8871e\" "
                         "fill-opacity=\"{:.2f}\"/>",
                         x, y + 9, w, k.communication_bins[b]);
    }
  }
  h += "</svg><h2>Ranks</h2><table><tr><th>rank</th><th>host</th><th>GPU</th><th>compute ms</th><th>comm ms</th>"
       "<th>overlap ms</th><th>wait ms</th><th>imposed wait ms</th><th>critical path ms</th></tr>";
  for (const auto& k : r.ranks)
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}</td><td>{:.3f}"
                     "</td><td>{:.3f}</td><td>{:.3f}</td></tr>",
                     k.rank, escape(k.host), escape(k.gpu), ms(k.compute_ns), ms(k.communication_ns), ms(k.overlap_ns),
                     ms(k.collective_wait_ns), ms(k.imposed_wait_ns), ms(k.critical_path_ns));
  h += "</table><h2>Stragglers</h2>";
  if (r.stragglers.empty()) h += "<p>none</p>";
  for (const auto& s : r.stragglers) h += fmt::format("<p><b>rank {}</b>: {}</p>", s.rank, escape(s.evidence));
  h += "<h2>Clock offsets</h2><table><tr><th>node</th><th>offset us</th><th>error us</th><th>samples</th></tr>";
  for (const auto& o : r.clock_offsets)
    h += fmt::format("<tr><td>{}</td><td>{:.3f}</td><td>{:.3f}</td><td>{}</td></tr>", escape(o.host), o.offset_ns / 1e3,
                     o.spread_ns / 1e3, o.samples);
  h += "</table><h2>Critical path across ranks</h2><table><tr><th>rank</th><th>ms</th><th>kernel</th></tr>";
  for (const auto& p : r.critical_path.hotspots)
    h += fmt::format("<tr><td>{}</td><td>{:.3f}</td><td style=\"text-align:left\">{}</td></tr>", p.rank, ms(p.ns),
                     escape(p.kernel));
  h += "</table></body></html>\n";
  return h;
}

}  // namespace rpl::report
