#include "report/replay_summary.hpp"

#include <fmt/core.h>

#include <cstdint>

namespace rpl::report {
using nlohmann::json;
namespace {

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

}  // namespace rpl::report
