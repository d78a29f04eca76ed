// The rank summary file (schemas/rank-summary.schema.json): its one writer and its one reader.
#include "app/rank_summary_file.hpp"

#include <fmt/core.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/json_integer.hpp"

namespace rpl::app {
using nlohmann::json;
using analysis::RankSummary;

json rounded_bins_json(const std::vector<float>& bins) {
  json a = json::array();
  for (float f : bins) a.push_back(std::round(f * 1000) / 1000);
  return a;
}

namespace {

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
  j["kernel_time_ns"] = s.kernel_time_ns;
  j["dispatches"] = s.dispatches;
  j["collective_kernels"] = s.collective_kernels;
  j["peer_copies"] = s.peer_copies;
  j["peer_copy_bytes"] = s.peer_copy_bytes;
  j["names"] = s.names;
  json c = json::array();  // [key, sequence, start, end(, the call's 11 fields)]: compact, there may be many
  for (const auto& a : s.collectives) {
    json row = {a.key, a.sequence, a.start, a.end};
    if (a.comm != 0)
      for (json v : {json(a.comm), json(a.comm_sequence), json(a.operation), json(a.data_type), json(a.count),
                     json(a.bytes), json(a.calls), json(a.root), json(a.peer), json(a.algorithm), json(a.protocol)})
        row.push_back(std::move(v));
    c.push_back(std::move(row));
  }
  j["collectives"] = std::move(c);
  json comms = json::array();  // [id, size, rank, nodes]; [0] is "none"
  for (std::size_t k = 1; k < s.communicators.size(); ++k) {
    const auto& m = s.communicators[k];
    comms.push_back({fmt::format("0x{:016x}", m.id), m.size, m.rank, m.nodes});
  }
  j["communicators"] = std::move(comms);
  json links = json::array();
  for (const auto& l : s.links) links.push_back({{"peer_uuid", l.peer_uuid}, {"kind", l.kind}, {"links", l.links}, {"gb_per_s", l.gb_per_s}});
  j["links"] = std::move(links);
  j["calls_recorded"] = s.calls_recorded;
  j["calls_unlinked"] = s.calls_unlinked;
  json g = json::array();  // [busy, top kernel, top kernel ns, [saved per scenario]]
  for (const auto& w : s.segments) g.push_back({w.busy_ns, w.top_kernel, w.top_kernel_ns, w.saved_ns});
  j["segments"] = std::move(g);
  j["what_if"] = s.what_if;
  json calls = json::object();
  for (const auto& [k, v] : s.nccl_calls) calls[k] = v;
  j["nccl_calls"] = std::move(calls);
  j["compute_bins"] = rounded_bins_json(s.compute_bins);
  j["communication_bins"] = rounded_bins_json(s.communication_bins);
  json copies = json::array();  // [kind, count, bytes, total, min, max]
  for (const auto& c : s.copies) copies.push_back({c.kind, c.count, c.bytes, c.total_ns, c.min_ns, c.max_ns});
  j["copy_summary"] = std::move(copies);
  json ranges = json::array();  // [name, count, total, min, max, GPU kernels, GPU copies, GPU busy, GPU span]
  for (const auto& r : s.ranges)
    ranges.push_back({r.name, r.count, r.total_ns, r.min_ns, r.max_ns, r.gpu_kernels, r.gpu_copies, r.gpu_busy_ns,
                      r.gpu_span_ns});
  j["range_summary"] = std::move(ranges);
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
  s.kernel_time_ns = i64(j.at("kernel_time_ns"), "kernel_time_ns");
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
  const json& comms = j.at("communicators");
  s.communicators.emplace_back();
  for (const auto& m : comms) {
    const std::string id = m.at(0).get<std::string>();
    std::size_t used = 0;
    const uint64_t value = std::stoull(id, &used, 16);
    if (used != id.size()) throw std::out_of_range(fmt::format("communicator id '{}' is not hexadecimal", id));
    s.communicators.push_back({value, json_integer_or_throw<int32_t>(m.at(1), "communicators[…][1]"),
                               json_integer_or_throw<int32_t>(m.at(2), "communicators[…][2]"),
                               json_integer_or_throw<int32_t>(m.at(3), "communicators[…][3]")});
  }
  if (s.communicators.size() == 1) s.communicators.clear();
  auto i32 = [](const json& v, const char* what) { return json_integer_or_throw<int32_t>(v, what); };
  for (const auto& c : j.at("collectives")) {
    analysis::CollectiveArrival a{name_ok(u32(c.at(0), "collectives[…][0]")), u32(c.at(1), "collectives[…][1]"),
                        i64(c.at(2), "collectives[…][2]"), i64(c.at(3), "collectives[…][3]")};
    if (c.size() == 15) {
      a.comm = u32(c.at(4), "collectives[…][4]");
      if (a.comm == 0 || a.comm >= s.communicators.size())
        throw std::out_of_range(fmt::format("communicator {} out of range", a.comm));
      a.comm_sequence = u64(c.at(5), "collectives[…][5]");
      a.operation = name_ok(u32(c.at(6), "collectives[…][6]"));
      a.data_type = name_ok(u32(c.at(7), "collectives[…][7]"));
      a.count = u64(c.at(8), "collectives[…][8]");
      a.bytes = u64(c.at(9), "collectives[…][9]");
      a.calls = u32(c.at(10), "collectives[…][10]");
      a.root = i32(c.at(11), "collectives[…][11]");
      a.peer = i32(c.at(12), "collectives[…][12]");
      a.algorithm = name_ok(u32(c.at(13), "collectives[…][13]"));
      a.protocol = name_ok(u32(c.at(14), "collectives[…][14]"));
    } else if (c.size() != 4) {
      throw std::out_of_range("a collective has 4 or 15 fields");
    }
    s.collectives.push_back(a);
  }
  for (const auto& l : j.at("links"))
    s.links.push_back({l.at("peer_uuid").get<std::string>(), l.at("kind").get<std::string>(),
                       u32(l.at("links"), "links[…].links"), l.at("gb_per_s").get<double>()});
  s.calls_recorded = u64(j.at("calls_recorded"), "calls_recorded");
  s.calls_unlinked = u64(j.at("calls_unlinked"), "calls_unlinked");
  for (const auto& g : j.at("segments"))
    s.segments.push_back({i64(g.at(0), "segments[…][0]"), name_ok(u32(g.at(1), "segments[…][1]")), i64(g.at(2), "segments[…][2]"),
                          times(g.at(3))});
  if (s.segments.size() != s.collectives.size() + 1)
    throw std::out_of_range("segments must number collectives + 1");
  s.what_if = j.at("what_if").get<std::vector<std::string>>();
  for (const auto& [k, v] : j.at("nccl_calls").items()) s.nccl_calls.emplace_back(k, u64(v, "nccl_calls"));
  s.compute_bins = bins_from(j.at("compute_bins"));
  s.communication_bins = bins_from(j.at("communication_bins"));
  for (const auto& c : j.at("copy_summary")) {
    analysis::CopyKindSummary k;
    k.kind = c.at(0).get<std::string>();
    k.count = u64(c.at(1), "copy_summary[…][1]");
    k.bytes = u64(c.at(2), "copy_summary[…][2]");
    k.total_ns = i64(c.at(3), "copy_summary[…][3]");
    k.min_ns = i64(c.at(4), "copy_summary[…][4]");
    k.max_ns = i64(c.at(5), "copy_summary[…][5]");
    k.gbps = k.total_ns > 0 ? static_cast<double>(k.bytes) / static_cast<double>(k.total_ns) : 0;
    s.copies.push_back(std::move(k));
  }
  for (const auto& r : j.at("range_summary")) {
    analysis::RangeSummary k;
    k.name = r.at(0).get<std::string>();
    k.count = u64(r.at(1), "range_summary[…][1]");
    k.total_ns = i64(r.at(2), "range_summary[…][2]");
    k.min_ns = i64(r.at(3), "range_summary[…][3]");
    k.max_ns = i64(r.at(4), "range_summary[…][4]");
    k.gpu_kernels = u64(r.at(5), "range_summary[…][5]");
    k.gpu_copies = u64(r.at(6), "range_summary[…][6]");
    k.gpu_busy_ns = i64(r.at(7), "range_summary[…][7]");
    k.gpu_span_ns = i64(r.at(8), "range_summary[…][8]");
    s.ranges.push_back(std::move(k));
  }
  return s;
}

}  // namespace

json rank_summaries_document(const std::vector<RankSummary>& summaries) {
  json j;
  j["schema_version"] = kRankSummaryFileSchemaVersion;
  j["kind"] = "rocm-perf rank summary";
  j["ranks"] = json::array();
  for (const auto& s : summaries) j["ranks"].push_back(summary_json(s));
  return j;
}

std::vector<RankSummary> rank_summaries_from_document(const json& doc, const std::string& file) {
  try {
    if (doc.value("kind", "") != "rocm-perf rank summary")
      throw std::invalid_argument("not a rank summary (written by rocm-perf analyze --rank-summary)");
    if (doc.value("schema_version", "") != kRankSummaryFileSchemaVersion)
      throw std::invalid_argument(fmt::format("schema_version {} (this rocm-perf reads {})",
                                              doc.value("schema_version", "?"), kRankSummaryFileSchemaVersion));
    std::vector<RankSummary> out;
    for (const auto& r : doc.at("ranks")) out.push_back(summary_from(r));
    return out;
  } catch (const std::exception& e) {
    throw Error(ExitCode::InputInvalid, fmt::format("{}: {}", file, e.what()));
  }
}

void write_rank_summary_file(const std::string& path, const std::vector<RankSummary>& summaries) {
  const json doc = rank_summaries_document(summaries);
  write_file_atomically(path, [&](std::FILE* f) {
    std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fputc('\n', f);
  });
}

std::vector<RankSummary> read_rank_summary_files(const std::vector<std::string>& files) {
  std::vector<RankSummary> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) throw Error(ExitCode::InputMissing, fmt::format("{}: cannot be read", f));
    auto doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) throw Error(ExitCode::InputInvalid, fmt::format("{}: not JSON", f));
    for (auto& s : rank_summaries_from_document(doc, f)) out.push_back(std::move(s));
  }
  if (out.empty()) throw Error(ExitCode::InputEmpty, "the summary files hold no rank");
  return out;
}

}  // namespace rpl::app
