// One roofline point from counter statistics (roofline_point.hpp); docs/roofline.md has the definitions.
#include "analysis/roofline_point.hpp"
#include "support/json_optional.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpl::analysis {

// What a point's counter terms add up to, per memory level, before the point is derived from them.
struct QuantitySums {
  std::array<bool, kMemLevelCount> level_seen{}, level_complete{};
  std::array<double, kMemLevelCount> level_per_dispatch{}, level_rate{};
  bool flops_complete = true;
  std::size_t missing_terms = 0;  // terms without a measurement
};

namespace {

constexpr std::size_t kLevelHbm = static_cast<std::size_t>(MemLevel::Hbm);

std::string num(double v) { return fmt::format("{:.6g}", v); }

void add_missing(RooflinePoint& p, std::string_view counter) {
  if (std::find(p.missing_counters.begin(), p.missing_counters.end(), counter) == p.missing_counters.end())
    p.missing_counters.emplace_back(counter);
}

std::string above_message(const std::string& what, double achieved, const char* unit, double ceiling,
                          const std::string& ceiling_desc, double tolerance) {
  return fmt::format(
      "{}: achieved {} {} is {:.0f}% of {} {} {}, above it by more than the {:.0f}% tolerance. A point cannot "
      "exceed its roof: this is a measurement error (counters and durations of different scopes or passes, "
      "a wrong ceiling or unit), not a result",
      what, num(achieved), unit, 100.0 * achieved / ceiling, ceiling_desc, num(ceiling), unit, 100.0 * tolerance);
}

// Bytes and GB/s of every level whose terms were all measured, and its share of the level's ceiling.
void set_bandwidths(RooflinePoint& p, const QuantitySums& sums, const Ceilings& ceilings) {
  for (std::size_t l = 0; l < kMemLevelCount; ++l)
    if (sums.level_seen[l] && sums.level_complete[l]) {
      p.bytes_per_dispatch[l] = sums.level_per_dispatch[l];
      p.gbps[l] = sums.level_rate[l];
      const Ceiling& ceiling = ceilings.bandwidth[l];
      if (ceiling.known()) p.fraction_of_bandwidth[l] = sums.level_rate[l] / ceiling.value;
    }
}

// Total GFLOP/s, the dominant compute class, and the intensity per level; returns the total (0 without FLOPs).
double set_flop_totals(RooflinePoint& p) {
  bool any_flops = false;
  double total = 0;
  for (std::size_t c = 0; c < kComputeClassCount; ++c)
    if (p.gflops[c]) {
      any_flops = true;
      total += *p.gflops[c];
      if (*p.gflops[c] > 0 && (!p.dominant || *p.gflops[c] > *p.gflops[p.dominant->index()]))
        p.dominant = ComputeClass::from_index(c);
    }
  if (any_flops) p.total_gflops = total;
  for (std::size_t l = 0; l < kMemLevelCount; ++l)
    if (p.total_gflops && p.gbps[l] && *p.gbps[l] > 0) p.intensity[l] = total / *p.gbps[l];
  return total;
}

// The roof's two ceilings (device memory, the dominant class's compute); says why the point is incomplete
// (missing counters or ceilings) and returns whether it is.
bool attach_ceilings(RooflinePoint& p, const QuantitySums& sums, const Ceilings& ceilings, bool list_missing) {
  if (!list_missing && sums.missing_terms > 0)
    p.reasons.push_back(fmt::format("{} counter term(s) missing on this dispatch (the kernel's point lists the "
                                    "counters; with several passes each dispatch carries only its pass's)",
                                    sums.missing_terms));
  bool incomplete = !sums.flops_complete || !p.gbps[kLevelHbm];
  if (!sums.flops_complete)
    p.reasons.push_back("FLOP counters are missing: the FLOPs are a lower bound and the point is incomplete");
  if (!p.gbps[kLevelHbm]) p.reasons.push_back("device-memory (hbm) byte counters are missing or inconsistent");

  const Ceiling& hbm_ceiling = ceilings.bandwidth[kLevelHbm];
  if (hbm_ceiling.known()) p.peak_hbm_gbps = hbm_ceiling.value;
  else {
    incomplete = true;
    p.reasons.push_back("no device-memory bandwidth ceiling for this device (give --ceilings or "
                        "--memory-bandwidth-gbps)");
  }
  if (p.dominant) {
    const Ceiling& peak = ceilings.compute_of(*p.dominant);
    if (peak.known()) p.peak_gflops = peak.value;
    else {
      incomplete = true;
      p.reasons.push_back("no compute ceiling for " + compute_class_name(*p.dominant) + " on this device");
    }
  }
  return incomplete;
}

// Memory- or compute-bound: the ridge point, the roof at the point's intensity, the fraction of it reached.
void place_on_roof(RooflinePoint& p, double total) {
  if (!p.gbps[kLevelHbm] || !p.peak_hbm_gbps || !p.total_gflops) return;
  const double hbm = *p.gbps[kLevelHbm];
  if (!p.dominant) {
    // No FLOPs at all (a copy kernel): intensity 0, on the memory side, judged by its bandwidth.
    p.bound = Bound::Memory;
    p.roof_gflops = 0.0;
    p.fraction_of_roof = hbm / *p.peak_hbm_gbps;
  } else if (p.peak_gflops) {
    p.ridge_point = *p.peak_gflops / *p.peak_hbm_gbps;
    if (hbm > 0 && *p.intensity[kLevelHbm] < *p.ridge_point) {
      p.bound = Bound::Memory;
      p.roof_gflops = *p.intensity[kLevelHbm] * *p.peak_hbm_gbps;
      p.fraction_of_roof = hbm / *p.peak_hbm_gbps;
    } else {
      p.bound = Bound::Compute;  // includes no device-memory traffic at all (infinite intensity)
      p.roof_gflops = *p.peak_gflops;
      p.fraction_of_roof = total / *p.peak_gflops;
    }
  }
}

// Every measured rate against its own ceiling, and the point against its roof: what is above by more than
// the tolerance.
std::vector<std::string> above_roof_messages(const RooflinePoint& p, const Ceilings& ceilings, double tolerance,
                                             double total) {
  std::vector<std::string> above;
  const double limit = 1.0 + tolerance;
  for (std::size_t c = 0; c < kComputeClassCount; ++c) {
    const Ceiling& ceiling = ceilings.compute[c];
    if (p.gflops[c] && ceiling.known() && *p.gflops[c] > ceiling.value * limit)
      above.push_back(above_message(compute_class_name(ComputeClass::from_index(c)), *p.gflops[c], "GFLOP/s",
                                    ceiling.value, std::string("its ") + to_string(ceiling.source) + " ceiling",
                                    tolerance));
  }
  for (std::size_t l = 0; l < kMemLevelCount; ++l) {
    const Ceiling& ceiling = ceilings.bandwidth[l];
    if (p.gbps[l] && ceiling.known() && *p.gbps[l] > ceiling.value * limit)
      above.push_back(above_message(mem_level_name(static_cast<MemLevel>(l)), *p.gbps[l], "GB/s", ceiling.value,
                                    std::string("its ") + to_string(ceiling.source) + " bandwidth ceiling",
                                    tolerance));
  }
  if (p.roof_gflops && *p.roof_gflops > 0 && total > *p.roof_gflops * limit)
    above.push_back(above_message("the point", total, "GFLOP/s", *p.roof_gflops, "the roof at its intensity,",
                                  tolerance));
  return above;
}

}  // namespace

QuantitySums RooflineEvaluator::sum_quantities(const CounterStats* stats, bool list_missing, RooflinePoint& p) const {
  QuantitySums sums;
  sums.level_complete.fill(true);
  for (const auto& rq : quantities_) {
    const RooflineQuantity& q = *rq.q;
    double per_dispatch = 0, rate = 0;
    bool complete = true;
    for (const auto& t : rq.terms) {
      const CounterStats* s = nullptr;
      if (t.slot >= 0 && stats[t.slot].dispatches > 0) s = &stats[t.slot];
      else if (t.fallback >= 0 && stats[t.fallback].dispatches > 0) s = &stats[t.fallback];
      if (!s || s->duration_ns <= 0) {
        complete = false;
        ++sums.missing_terms;
        if (list_missing) add_missing(p, t.counter);
        continue;
      }
      per_dispatch += t.coefficient * s->sum / static_cast<double>(s->dispatches);
      rate += t.coefficient * s->sum / s->duration_ns;
    }
    // Differences of counters (hbm_read, lds) can come out negative when their terms were measured in
    // different passes that disagree: that is not a quantity, it is an inconsistency.
    if (complete && (per_dispatch < 0 || rate < 0)) {
      complete = false;
      p.reasons.push_back(fmt::format("{} came out negative ({} per dispatch): its counters disagree (different "
                                      "passes or runs?)",
                                      q.name, num(per_dispatch)));
    }
    if (q.kind == RooflineQuantity::Kind::Flops) {
      if (!complete) {
        sums.flops_complete = false;
        continue;
      }
      const std::size_t c = q.compute.index();
      p.flops_per_dispatch[c] = p.flops_per_dispatch[c].value_or(0) + per_dispatch;
      p.gflops[c] = p.gflops[c].value_or(0) + rate;
    } else {
      const auto l = static_cast<std::size_t>(q.level);
      sums.level_seen[l] = true;
      if (!complete) {
        sums.level_complete[l] = false;
        continue;
      }
      sums.level_per_dispatch[l] += per_dispatch;
      sums.level_rate[l] += rate;
    }
  }
  return sums;
}


RooflinePoint RooflineEvaluator::evaluate(const CounterStats* stats, const Ceilings& ceilings, double tolerance,
                                  bool list_missing) const {
  RooflinePoint p;
  if (!set_.unavailable_reason.empty()) {
    p.status = PointStatus::Unavailable;
    p.reasons.push_back(set_.unavailable_reason);
    return p;
  }
  const QuantitySums sums = sum_quantities(stats, list_missing, p);
  set_bandwidths(p, sums, ceilings);
  const double total = set_flop_totals(p);
  const bool incomplete = attach_ceilings(p, sums, ceilings, list_missing);
  place_on_roof(p, total);
  const std::vector<std::string> above = above_roof_messages(p, ceilings, tolerance, total);
  if (!above.empty()) {
    p.above_roof = true;
    p.status = PointStatus::AboveRoof;
    p.reasons.insert(p.reasons.begin(), above.begin(), above.end());
  } else if (!set_.flop_counters) {
    p.status = incomplete ? PointStatus::Incomplete : PointStatus::BandwidthOnly;
  } else {
    p.status = incomplete ? PointStatus::Incomplete : PointStatus::Ok;
  }
  if (!set_.flop_counters) p.reasons.insert(p.reasons.begin(), set_.limitation);
  return p;
}

const char* to_string(PointStatus s) {
  switch (s) {
    case PointStatus::Ok: return "ok";
    case PointStatus::AboveRoof: return "above_roof";
    case PointStatus::Incomplete: return "incomplete";
    case PointStatus::Unavailable: return "unavailable";
    case PointStatus::BandwidthOnly: return "bandwidth_only";
  }
  return "incomplete";
}

const char* to_string(Bound b) {
  switch (b) {
    case Bound::Unknown: return "unknown";
    case Bound::Memory: return "memory";
    case Bound::Compute: return "compute";
  }
  return "unknown";
}

RooflinePoint evaluate_counters(const RooflineCounterSet& set, const std::vector<NamedCounterStats>& counters,
                                const Ceilings& ceilings, double tolerance) {
  std::vector<CounterStats> stats;
  for (const auto& c : counters) stats.push_back(c.stats);
  RooflineEvaluator ev(set, [&](std::string_view name) {
    for (std::size_t i = 0; i < counters.size(); ++i)
      if (counters[i].counter == name) return static_cast<int>(i);
    return -1;
  });
  RooflinePoint p = ev.evaluate(stats.data(), ceilings, tolerance);
  for (const auto& c : counters) {
    p.profiled_dispatches = std::max<std::size_t>(p.profiled_dispatches, c.stats.dispatches);
    p.duration_ns = std::max(p.duration_ns, c.stats.duration_ns);
  }
  return p;
}

nlohmann::json to_json(const RooflinePoint& p) {
  nlohmann::json flops = nlohmann::json::object();
  for (std::size_t c = 0; c < kComputeClassCount; ++c)
    if (p.gflops[c])
      flops[compute_class_name(ComputeClass::from_index(c))] = {{"per_dispatch", json_or_null(p.flops_per_dispatch[c])},
                                                                {"gflops_per_s", *p.gflops[c]}};
  nlohmann::json bytes = nlohmann::json::object();
  for (std::size_t l = 0; l < kMemLevelCount; ++l)
    if (p.gbps[l])
      bytes[mem_level_name(static_cast<MemLevel>(l))] = {{"per_dispatch", json_or_null(p.bytes_per_dispatch[l])},
                                                         {"gbytes_per_s", *p.gbps[l]},
                                                         {"intensity", json_or_null(p.intensity[l])},
                                                         {"fraction_of_peak", json_or_null(p.fraction_of_bandwidth[l])}};
  return {{"status", to_string(p.status)},
          {"reasons", p.reasons},
          {"missing_counters", p.missing_counters},
          {"profiled_dispatches", p.profiled_dispatches},
          {"duration_ns", p.duration_ns},
          {"flops", std::move(flops)},
          {"bytes", std::move(bytes)},
          {"total_gflops_per_s", json_or_null(p.total_gflops)},
          {"dominant_class", p.dominant ? nlohmann::json(compute_class_name(*p.dominant)) : nlohmann::json(nullptr)},
          {"peak_gflops", json_or_null(p.peak_gflops)},
          {"peak_hbm_gbps", json_or_null(p.peak_hbm_gbps)},
          {"ridge_point", json_or_null(p.ridge_point)},
          {"roof_gflops_per_s", json_or_null(p.roof_gflops)},
          {"fraction_of_roof", json_or_null(p.fraction_of_roof)},
          {"bound", to_string(p.bound)},
          {"above_roof", p.above_roof}};
}

}  // namespace rpl::analysis
