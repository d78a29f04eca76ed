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
      {"mode", to_string(r.mode)},
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
  if (r.mode == ReplayMode::FullVm) {
    json diffs = json::array();
    for (const auto& d : r.verification.differing) diffs.push_back(to_json(d));
    const Verification& v = r.verification;
    doc["iterations"] = r.iterations;
    doc["recopy"] = r.recopy;
    doc["cache"] = to_string(r.cache);
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
