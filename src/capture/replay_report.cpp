#include "capture/replay_report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "support/errors.hpp"

namespace rpl::capture {
using nlohmann::json;

TimeStats time_stats(std::vector<double> samples) {
  TimeStats s;
  s.per_iteration_ns = samples;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  std::size_t n = samples.size();
  s.mean_ns = std::accumulate(samples.begin(), samples.end(), 0.0) / double(n);
  s.median_ns = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  s.min_ns = samples.front();
  s.max_ns = samples.back();
  return s;
}

bool ReplayReport::all_exact() const {
  return std::all_of(ranges.begin(), ranges.end(), [](const RangeReport& r) { return r.status == "exact"; });
}

namespace {

json magnitude_json(const Magnitude& m) {
  return {{"max_abs", m.max_abs}, {"max_rel", m.max_rel}, {"max_ulp", m.max_ulp}, {"elements", m.elements},
          {"nonfinite_pairs", m.nonfinite_pairs}};
}

json to_json(const RegionDifference& d) {
  const RegionVerdict& v = d.verdict;
  json j{{"id", d.id}, {"address", to_hex(d.address)}, {"size", d.size}, {"kind", d.kind}, {"status", v.status},
         {"bytes_differing", v.bytes_differing}, {"first_difference", v.first_difference},
         {"nondeterministic_bytes", v.nondeterministic_bytes}, {"mismatched_bytes", v.mismatched_bytes},
         {"element", {{"type", element_name(v.element)}, {"inferred", v.element_inferred}}}};
  if (!d.symbol.empty()) j["symbol"] = d.symbol;
  if (v.element != Element::Bytes) {
    j["replay_spread"] = magnitude_json(v.replay_spread);
    j["difference"] = magnitude_json(v.difference);
    j["difference"]["elements_beyond_spread"] = v.elements_beyond_spread;
  }
  return j;
}

// "3 ULP (f32, inferred), abs 1.2e-06, rel 3.4e-07"
std::string magnitude_text(const json& d, const char* which) {
  if (!d.contains(which)) return "raw bytes";
  const json& m = d[which];
  const json& e = d.at("element");
  std::string text = fmt::format("{} ULP ({}{}), abs {:.3g}, rel {:.3g}", m.at("max_ulp").get<uint64_t>(),
                                 e.at("type").get<std::string>(), e.at("inferred").get<bool>() ? ", inferred" : "",
                                 m.at("max_abs").get<double>(), m.at("max_rel").get<double>());
  if (uint64_t n = m.at("nonfinite_pairs").get<uint64_t>()) text += fmt::format(", {} NaN/inf against a number", n);
  return text;
}

}  // namespace

json to_json(const ReplayReport& r) {
  json ranges = json::array(), regions = json::array();
  for (const auto& g : r.ranges) {
    json j{{"address", to_hex(g.address)}, {"size", g.size}, {"status", g.status}};
    if (g.status == "relocated") j["got"] = to_hex(g.got);
    if (!g.error.empty()) j["error"] = g.error;
    ranges.push_back(std::move(j));
  }
  for (const auto& g : r.regions) {
    json j{{"id", g.id}, {"address", to_hex(g.address)}, {"size", g.size}, {"kind", g.kind}, {"status", g.status}};
    if (!g.symbol.empty()) j["symbol"] = g.symbol;
    if (g.replay_address) j["replay_address"] = to_hex(g.replay_address);
    regions.push_back(std::move(j));
  }
  json doc{
      {"schema_version", kReplaySchemaVersion},
      {"mode", r.mode},
      {"capture_dir", r.capture_dir},
      {"platform", r.platform},
      {"device", r.device_name},
      {"runner", r.runner},
      {"kernel", {{"mangled_name", r.kernel.mangled_name}, {"demangled_name", r.kernel.demangled_name}}},
      {"geometry",
       {{"grid", r.geometry.grid}, {"block", r.geometry.block}, {"dynamic_shared_bytes", r.geometry.dynamic_shared_bytes}}},
      {"code_object", {{"path", r.code_object_path.empty() ? json(nullptr) : json(r.code_object_path)},
                       {"source", r.code_object_path.empty() ? "capture" : "file"}}},
      {"reservation", {{"granularity", r.granularity}, {"alignment", r.reservation_alignment}, {"all_exact", r.all_exact()}, {"ranges", ranges}, {"regions", regions}}},
  };
  if (r.mode == "full-vm") {
    json diffs = json::array();
    for (const auto& d : r.verification.differing) diffs.push_back(to_json(d));
    const Verification& v = r.verification;
    doc["iterations"] = r.iterations;
    doc["recopy"] = r.recopy;
    doc["cache"] = r.cache;
    doc["restore_source"] = r.restore_source;
    doc["cache_preparation"] = r.cache_preparation;
    doc["warmup"] = {{"ms_requested", r.warmup_ms_requested}, {"launches", r.warmup_launches},
                     {"wall_ns", r.warmup_wall_ns}};
    doc["restores"] = {{"between_launches", r.restores.between_launches}, {"reason", r.restores.reason},
                       {"regions", r.restores.regions}, {"bytes", r.restores.bytes},
                       {"filled_regions", r.restores.filled_regions}, {"filled_bytes", r.restores.filled_bytes}};
    doc["gpu_time_ns"] = {{"mean", r.gpu_time.mean_ns}, {"median", r.gpu_time.median_ns}, {"min", r.gpu_time.min_ns},
                          {"max", r.gpu_time.max_ns}, {"per_iteration", r.gpu_time.per_iteration_ns}};
    doc["wall_time_ns"] = {{"setup", r.setup_wall_ns}, {"iterations", r.iterations_wall_ns}, {"total", r.total_wall_ns}};
    doc["verification"] = {{"status", v.status}, {"reason", v.reason}, {"replays", v.replays},
                           {"regions_compared", v.regions_compared}, {"bytes_compared", v.bytes_compared},
                           {"bytes_differing", v.bytes_differing}, {"nondeterministic_bytes", v.nondeterministic_bytes},
                           {"mismatched_bytes", v.mismatched_bytes}, {"differing_regions", diffs}};
  }
  return doc;
}

std::string replay_summary_text(const json& doc) {
  std::string out;
  const json& res = doc.at("reservation");
  out += fmt::format("kernel   {}\n", doc.at("kernel").at("demangled_name").get<std::string>());
  const json& g = doc.at("geometry");
  out += fmt::format("geometry grid ({},{},{}) block ({},{},{}) dynamic shared {} B\n", g["grid"][0].get<int64_t>(),
                     g["grid"][1].get<int64_t>(), g["grid"][2].get<int64_t>(), g["block"][0].get<int64_t>(),
                     g["block"][1].get<int64_t>(), g["block"][2].get<int64_t>(), g["dynamic_shared_bytes"].get<int64_t>());
  std::size_t exact = 0, total = res.at("ranges").size();
  for (const json& r : res.at("ranges")) exact += r.at("status") == "exact";
  out += fmt::format("address  {} of {} ranges reserved at their captured address (alignment {} B, granularity {} B)\n",
                     exact, total, res.at("alignment").get<uint64_t>(), res.at("granularity").get<uint64_t>());
  if (doc.at("mode") == "reserve-check") {
    for (const json& r : res.at("regions")) {
      std::string where = r.at("status") == "loader" ? "placed by the code-object loader" : r.at("status").get<std::string>();
      out += fmt::format("  region {:>5} {} {:>12} B {:<14} {}{}\n", r.at("id").get<uint64_t>(),
                         r.at("address").get<std::string>(), r.at("size").get<uint64_t>(), r.at("kind").get<std::string>(),
                         where, r.contains("symbol") ? " (" + r["symbol"].get<std::string>() + ")" : "");
    }
    return out;
  }
  const json& t = doc.at("gpu_time_ns");
  const std::string cache = doc.value("cache", "");
  out += fmt::format("replay   {} iteration(s), {}, cache {}; GPU time median {:.3f} us (mean {:.3f}, min {:.3f}, max {:.3f})\n",
                     doc.at("iterations").get<unsigned>(),
                     !doc.at("recopy").get<bool>() ? "stateful (--no-recopy)"
                     : doc.contains("restores") && !doc["restores"].at("between_launches").get<bool>()
                         ? "back to back, nothing restored between them"
                         : "memory restored before each",
                     cache == "cold" ? "cold (L2 flushed before each launch)"
                     : cache == "warm" ? "warm (one untimed launch first)"
                                       : cache,
                     t.at("median").get<double>() / 1e3, t.at("mean").get<double>() / 1e3, t.at("min").get<double>() / 1e3,
                     t.at("max").get<double>() / 1e3);
  if (doc.contains("cache_preparation") && !doc["cache_preparation"].get<std::string>().empty())
    out += fmt::format("caches   {}\n", doc["cache_preparation"].get<std::string>());
  if (doc.contains("warmup") && doc["warmup"].value("launches", 0) > 0)
    out += fmt::format("warm-up  {} untimed launch(es) in {:.1f} ms (--warmup-ms {})\n", doc["warmup"]["launches"].get<unsigned>(),
                       doc["warmup"]["wall_ns"].get<double>() / 1e6, doc["warmup"]["ms_requested"].get<double>());
  if (doc.contains("restores")) {
    const json& r = doc.at("restores");
    if (!r.at("between_launches").get<bool>())
      out += fmt::format("restores none between timed launches: {}\n", r.at("reason").get<std::string>());
    else if (r.at("regions").get<uint64_t>() > 0)
      out += fmt::format("restores {} region(s), {} bytes, before each timed launch ({} by a fill); {}\n",
                         r.at("regions").get<uint64_t>(), r.at("bytes").get<uint64_t>(),
                         r.at("filled_regions").get<uint64_t>(), r.at("reason").get<std::string>());
  }
  const json& w = doc.at("wall_time_ns");
  out += fmt::format("wall     {:.1f} ms in all: setup and verification {:.1f} ms, timed iterations {:.1f} ms\n",
                     w.at("total").get<double>() / 1e6, w.at("setup").get<double>() / 1e6,
                     w.at("iterations").get<double>() / 1e6);
  const json& v = doc.at("verification");
  const std::string status = v.at("status");
  const unsigned replays = v.value("replays", 1u);
  if (status == "match")
    out += fmt::format("verify   bit-exact: {} regions, {} bytes identical to the captured after-snapshot ({} replay(s))\n",
                       v.at("regions_compared").get<uint64_t>(), v.at("bytes_compared").get<uint64_t>(), replays);
  else if (status == "skipped")
    out += fmt::format("verify   skipped: {}\n", v.at("reason").get<std::string>());
  else if (status == "nondeterministic")
    out += fmt::format("verify   nondeterministic: {} bytes in {} of {} regions differ between {} replays of the unchanged "
                       "code or from the capture, all within the replays' own spread\n",
                       v.at("bytes_differing").get<uint64_t>(), v.at("differing_regions").size(),
                       v.at("regions_compared").get<uint64_t>(), replays);
  else
    out += fmt::format("verify   MISMATCH: {} bytes in {} of {} regions differ from the captured after-snapshot beyond what "
                       "{} replay(s) of the unchanged code vary by\n",
                       v.at("mismatched_bytes").get<uint64_t>(), v.at("differing_regions").size(),
                       v.at("regions_compared").get<uint64_t>(), replays);
  for (const json& d : v.at("differing_regions"))
    out += fmt::format("  region {:>5} {} {:<14} {:<16} {} of {} bytes differ (first at offset {}), {} vary between "
                       "replays, {} mismatched; replays spread {}; capture off by {}\n",
                       d.at("id").get<uint64_t>(), d.at("address").get<std::string>(), d.at("kind").get<std::string>(),
                       d.at("status").get<std::string>(), d.at("bytes_differing").get<uint64_t>(), d.at("size").get<uint64_t>(),
                       d.at("first_difference").get<uint64_t>(), d.at("nondeterministic_bytes").get<uint64_t>(),
                       d.at("mismatched_bytes").get<uint64_t>(), magnitude_text(d, "replay_spread"),
                       magnitude_text(d, "difference"));
  return out;
}

void throw_if_mismatch(const ReplayReport& r) {
  if (r.verification.status != "mismatch") return;
  throw Error(ExitCode::VerificationMismatch,
              fmt::format("the replayed result differs from the captured after-snapshot: {} bytes in {} region(s) beyond "
                          "what {} replay(s) of the unchanged code vary by",
                          r.verification.mismatched_bytes,
                          std::count_if(r.verification.differing.begin(), r.verification.differing.end(),
                                        [](const RegionDifference& d) { return d.verdict.status == "mismatch"; }),
                          r.verification.replays));
}

}  // namespace rpl::capture
