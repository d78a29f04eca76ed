// Roofline evaluation over a Trace's counter samples. See roofline.hpp for the scope rule and
// docs/roofline.md for the definitions.
#include "analysis/roofline.hpp"
#include "support/json_optional.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpl::analysis {
namespace {

constexpr std::size_t kLevelHbm = static_cast<std::size_t>(MemLevel::Hbm);

// A counter set whose terms point at slots of a CounterStats array.
// What a point's counter terms add up to, per memory level, before the point is derived from them.
struct QuantitySums {
  std::array<bool, kMemLevelCount> level_seen{}, level_complete{};
  std::array<double, kMemLevelCount> level_per_dispatch{}, level_rate{};
  bool flops_complete = true;
  std::size_t missing_terms = 0;  // terms without a measurement
};

class Evaluator {
 public:
  struct Term {
    int slot = -1;
    int fallback = -1;  // "X" for a term named "X_sum"
    double coefficient = 0;
    std::string_view counter;
  };
  struct Quantity {
    const RooflineQuantity* q = nullptr;
    std::vector<Term> terms;
  };

  template <typename SlotOf>
  Evaluator(RooflineCounterSet set, SlotOf&& slot_of) : set_(std::move(set)) {
    for (const auto& q : set_.quantities) {
      Quantity rq{&q, {}};
      for (const auto& t : q.terms) {
        Term term{slot_of(t.counter), -1, t.coefficient, t.counter};
        if (t.counter.size() > 4 && t.counter.substr(t.counter.size() - 4) == "_sum")
          term.fallback = slot_of(t.counter.substr(0, t.counter.size() - 4));
        rq.terms.push_back(term);
      }
      quantities_.push_back(std::move(rq));
    }
  }

  const RooflineCounterSet& set() const { return set_; }

  // list_missing = false (per-dispatch points): the missing counters are counted in one reason instead of
  // listed; the kernel's point lists them, and a dispatch of a multi-pass run misses most of them.
  RooflinePoint evaluate(const CounterStats* stats, const Ceilings& ceilings, double tolerance,
                         bool list_missing = true) const;

 private:
  // Adds up every quantity's terms into the point's FLOPs per class; the byte levels go into the sums.
  QuantitySums sum_quantities(const CounterStats* stats, bool list_missing, RooflinePoint& p) const;

  RooflineCounterSet set_;
  std::vector<Quantity> quantities_;
};

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

QuantitySums Evaluator::sum_quantities(const CounterStats* stats, bool list_missing, RooflinePoint& p) const {
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

RooflinePoint Evaluator::evaluate(const CounterStats* stats, const Ceilings& ceilings, double tolerance,
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

uint64_t kernel_key(Index name, Index agent) { return (static_cast<uint64_t>(name) << 32) | agent; }

struct KernelCounterAcc {
  Index name = 0;
  Index agent = kNoIndex;
  std::size_t profiled = 0;
  double duration_ns = 0;
  std::vector<CounterStats> slots;
  // The dispatch that last added to each slot: several samples of one dispatch and counter (rocpd rows
  // per dimension) add their values but count the dispatch and its duration once.
  std::vector<Index> last_dispatch;
  std::vector<Index> dispatches;  // profiled dispatches, in first-seen order (per_dispatch only)
};

}  // namespace

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
  Evaluator ev(set, [&](std::string_view name) {
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

namespace {

// compute_roofline's steps, over one trace. Counter samples are folded per (kernel, agent) into one slot per
// distinct counter name; the evaluators turn the slots into points.
class RooflineBuilder {
 public:
  RooflineBuilder(const Trace& trace, const RooflineOptions& options) : trace_(trace), options_(options) {
    result_.tolerance = options.above_roof_tolerance;
  }

  RooflineResult build() {
    resolve_gpu_agents();
    map_counter_names();
    read_duration_counters();
    accumulate_samples();
    add_kernels_of_unavailable_agents();
    if (trace_.counters.empty())
      result_.warnings.push_back("the trace holds no hardware counters: collect them (rocprofv3 -i with the "
                                 "roofline passes, or ncu) to get roofline points");
    count_dispatches();
    if (options_.per_dispatch) group_samples_by_dispatch();
    evaluate_kernels();
    return std::move(result_);
  }

 private:
  static constexpr uint32_t kUnset = 0xffffffffu, kSkip = 0xfffffffeu;
  enum : uint8_t { kNew = 0, kCounted = 1, kSkipped = 2 };

  int slot_of(std::string_view name) {
    auto [it, inserted] = slot_by_name_.try_emplace(std::string(name), static_cast<int>(slot_by_name_.size()));
    return it->second;
  }
  int agent_index(Index a) const { return a < agent_row_.size() ? agent_row_[a] : -1; }
  bool counted_sample(const CounterSample& c) const {
    return c.counter < slot_of_string_.size() && slot_of_string_[c.counter] >= 0 && c.dispatch < seen_.size() &&
           seen_[c.dispatch] == kCounted;
  }

  // Counter sets and ceilings of the GPU agents, and one slot per distinct counter name any of them uses.
  void resolve_gpu_agents() {
    agent_row_.assign(trace_.agents.size(), -1);
    for (Index a = 0; a < trace_.agents.size(); ++a) {
      const Agent& agent = trace_.agents[a];
      if (!agent.is_gpu) continue;
      AgentRoofline ar;
      ar.agent = a;
      ar.arch = normalize_arch(agent.name);
      ar.product_name = agent.product_name;
      RooflineCounterSet set = roofline_counter_set(agent.name);
      ar.family = set.family;
      ar.unavailable_reason = set.unavailable_reason;
      ar.limitation = set.limitation;
      CeilingOptions co{options_.empirical, options_.memory_bandwidth_gbps};
      ar.ceilings = resolve_ceilings(agent.name, agent.product_name,
                                     find_device(agent.name, agent.product_name, agent.cu_count), co);
      evaluators_.push_back(std::make_unique<Evaluator>(std::move(set), [this](std::string_view n) { return slot_of(n); }));
      agent_row_[a] = static_cast<int>(result_.agents.size());
      result_.agents.push_back(std::move(ar));
    }
  }

  // Counter string id -> slot; the duration counters (ncu) are read separately.
  void map_counter_names() {
    slot_of_string_.assign(trace_.strings.size(), -1);
    is_duration_string_.assign(trace_.strings.size(), false);
    for (Index s = 0; s < trace_.strings.size(); ++s) {
      auto it = slot_by_name_.find(trace_.strings.at(s));
      if (it != slot_by_name_.end()) slot_of_string_[s] = it->second;
      for (const auto& ev : evaluators_)
        if (!ev->set().duration_counter.empty() && trace_.strings.at(s) == ev->set().duration_counter)
          is_duration_string_[s] = true;
    }
    slot_count_ = slot_by_name_.size();
  }

  // Durations: a dispatch's own duration counter when present (same replay as its counters), else its
  // timestamps.
  void read_duration_counters() {
    for (const auto& c : trace_.counters)
      if (c.counter < is_duration_string_.size() && is_duration_string_[c.counter] && c.dispatch < trace_.dispatches.size()) {
        if (duration_counter_.empty()) duration_counter_.assign(trace_.dispatches.size(), -1.0);
        duration_counter_[c.dispatch] = c.value;
      }
  }
  double duration_of(Index d) const {
    if (!duration_counter_.empty() && duration_counter_[d] >= 0) return duration_counter_[d];
    return static_cast<double>(trace_.dispatches[d].duration());
  }

  // The accumulator of the dispatch's (kernel, agent), created on first sight; kSkip for a dispatch of no
  // known kernel or GPU agent.
  uint32_t kernel_for(Index d) {
    if (kernel_of_dispatch_[d] != kUnset) return kernel_of_dispatch_[d];
    const Dispatch& disp = trace_.dispatches[d];
    uint32_t k = kSkip;
    if (disp.symbol < trace_.symbols.size() && agent_index(disp.agent) >= 0) {
      const Index name = trace_.symbols[disp.symbol].display_name;
      auto [it, inserted] = kernel_by_key_.try_emplace(kernel_key(name, disp.agent), static_cast<uint32_t>(kernels_.size()));
      if (inserted) {
        KernelCounterAcc acc;
        acc.name = name;
        acc.agent = disp.agent;
        acc.slots.resize(slot_count_);
        acc.last_dispatch.assign(slot_count_, kNoIndex);
        kernels_.push_back(std::move(acc));
      }
      k = it->second;
    }
    kernel_of_dispatch_[d] = k;
    return k;
  }

  // Every roofline sample added to its kernel's slot; a dispatch counts once per slot (and once for the
  // kernel's profiled time), however many samples (rocpd rows per dimension) it has.
  void accumulate_samples() {
    std::size_t skipped_duration = 0, skipped_unattributed = 0;
    for (const auto& c : trace_.counters) {
      if (c.counter >= slot_of_string_.size() || slot_of_string_[c.counter] < 0) continue;
      if (c.dispatch >= trace_.dispatches.size()) {
        ++skipped_unattributed;
        continue;
      }
      if (kernel_of_dispatch_.empty()) {
        kernel_of_dispatch_.assign(trace_.dispatches.size(), kUnset);
        seen_.assign(trace_.dispatches.size(), kNew);
      }
      const uint32_t k = kernel_for(c.dispatch);
      if (k == kSkip) {
        ++skipped_unattributed;
        continue;
      }
      const double duration = duration_of(c.dispatch);
      if (seen_[c.dispatch] == kNew) {
        if (!(duration > 0)) {
          seen_[c.dispatch] = kSkipped;
          ++skipped_duration;
        } else {
          seen_[c.dispatch] = kCounted;
          kernels_[k].profiled += 1;
          kernels_[k].duration_ns += duration;
          if (options_.per_dispatch) kernels_[k].dispatches.push_back(c.dispatch);
        }
      }
      if (seen_[c.dispatch] != kCounted) continue;
      const auto slot = static_cast<std::size_t>(slot_of_string_[c.counter]);
      CounterStats& s = kernels_[k].slots[slot];
      s.sum += c.value;
      if (kernels_[k].last_dispatch[slot] != c.dispatch) {
        kernels_[k].last_dispatch[slot] = c.dispatch;
        s.duration_ns += duration;
        s.dispatches += 1;
      }
    }
    if (skipped_duration)
      result_.warnings.push_back(fmt::format("{} profiled dispatch(es) with a zero or negative duration were left out "
                                             "of the roofline (no time to divide by)",
                                             skipped_duration));
    if (skipped_unattributed)
      result_.warnings.push_back(fmt::format("{} counter sample(s) belong to no known dispatch, kernel or GPU agent "
                                             "and were ignored",
                                             skipped_unattributed));
  }

  // Agents without roofline counters: every kernel they ran is reported as unavailable, with the reason.
  void add_kernels_of_unavailable_agents() {
    for (Index d = 0; d < trace_.dispatches.size(); ++d) {
      const Dispatch& disp = trace_.dispatches[d];
      const int row = agent_index(disp.agent);
      if (row < 0 || result_.agents[static_cast<std::size_t>(row)].unavailable_reason.empty()) continue;
      if (disp.symbol >= trace_.symbols.size()) continue;
      const Index name = trace_.symbols[disp.symbol].display_name;
      if (kernel_by_key_.try_emplace(kernel_key(name, disp.agent), static_cast<uint32_t>(kernels_.size())).second) {
        KernelCounterAcc acc;
        acc.name = name;
        acc.agent = disp.agent;
        acc.slots.resize(slot_count_);
        kernels_.push_back(std::move(acc));
      }
    }
  }

  // Dispatch counts per kernel (all dispatches, profiled or not).
  void count_dispatches() {
    dispatch_count_.assign(kernels_.size(), 0);
    if (kernels_.empty()) return;  // no counted kernel (a trace without counters): no pass over the dispatches
    for (const Dispatch& disp : trace_.dispatches) {
      if (disp.symbol >= trace_.symbols.size()) continue;
      auto it = kernel_by_key_.find(kernel_key(trace_.symbols[disp.symbol].display_name, disp.agent));
      if (it != kernel_by_key_.end()) ++dispatch_count_[it->second];
    }
  }

  // For per-dispatch points: the counted samples grouped by dispatch with a counting sort (4 bytes per sample
  // and per dispatch, no dense row per dispatch).
  void group_samples_by_dispatch() {
    if (seen_.empty()) return;
    first_sample_.assign(trace_.dispatches.size() + 1, 0);
    for (const auto& c : trace_.counters)
      if (counted_sample(c)) ++first_sample_[c.dispatch + 1];
    for (std::size_t d = 0; d < trace_.dispatches.size(); ++d) first_sample_[d + 1] += first_sample_[d];
    sample_order_.resize(first_sample_.back());
    std::vector<uint32_t> next(first_sample_.begin(), first_sample_.end() - 1);
    for (std::size_t i = 0; i < trace_.counters.size(); ++i) {
      const auto& c = trace_.counters[i];
      if (counted_sample(c)) sample_order_[next[c.dispatch]++] = static_cast<uint32_t>(i);
    }
  }

  // One dispatch's point, evaluated through one reusable row of slots (cleared again after).
  DispatchRoofline dispatch_point(Index d, const Evaluator& ev, const Ceilings& ceilings) {
    DispatchRoofline dr;
    dr.dispatch = d;
    dr.dispatch_id = trace_.dispatches[d].dispatch_id;
    const double duration = duration_of(d);
    for (uint32_t i = first_sample_[d]; i < first_sample_[d + 1]; ++i) {
      const auto& c = trace_.counters[sample_order_[i]];
      CounterStats& r = dispatch_row_[static_cast<std::size_t>(slot_of_string_[c.counter])];
      r.sum += c.value;
      r.duration_ns = duration;
      r.dispatches = 1;
    }
    dr.point = ev.evaluate(dispatch_row_.data(), ceilings, options_.above_roof_tolerance, false);
    for (uint32_t i = first_sample_[d]; i < first_sample_[d + 1]; ++i)
      dispatch_row_[static_cast<std::size_t>(slot_of_string_[trace_.counters[sample_order_[i]].counter])] = {};
    dr.point.profiled_dispatches = 1;
    dr.point.duration_ns = duration;
    return dr;
  }

  // Each kernel's point (and its dispatches'), longest profiled time first.
  void evaluate_kernels() {
    dispatch_row_.assign(slot_count_, CounterStats{});
    for (std::size_t k = 0; k < kernels_.size(); ++k) {
      KernelCounterAcc& acc = kernels_[k];
      const auto row = static_cast<std::size_t>(agent_row_[acc.agent]);
      const Evaluator& ev = *evaluators_[row];
      const Ceilings& ceilings = result_.agents[row].ceilings;
      KernelRoofline kr;
      kr.name = trace_.strings.at(acc.name);
      kr.agent = acc.agent;
      kr.dispatch_count = dispatch_count_[k];
      kr.point = ev.evaluate(acc.slots.data(), ceilings, options_.above_roof_tolerance);
      kr.point.profiled_dispatches = acc.profiled;
      kr.point.duration_ns = acc.duration_ns;
      kr.dispatches.reserve(acc.dispatches.size());
      for (Index d : acc.dispatches) kr.dispatches.push_back(dispatch_point(d, ev, ceilings));
      result_.kernels.push_back(std::move(kr));
    }
    std::sort(result_.kernels.begin(), result_.kernels.end(), [](const KernelRoofline& a, const KernelRoofline& b) {
      if (a.point.duration_ns != b.point.duration_ns) return a.point.duration_ns > b.point.duration_ns;
      if (a.name != b.name) return a.name < b.name;
      return a.agent < b.agent;
    });
  }

  const Trace& trace_;
  const RooflineOptions& options_;
  RooflineResult result_;
  std::vector<int> agent_row_;                          // agent -> index into result_.agents, -1: not a GPU
  std::vector<std::unique_ptr<Evaluator>> evaluators_;  // per agent row
  std::unordered_map<std::string, int> slot_by_name_;
  std::size_t slot_count_ = 0;
  std::vector<int> slot_of_string_;
  std::vector<bool> is_duration_string_;
  std::vector<double> duration_counter_;
  std::vector<KernelCounterAcc> kernels_;
  std::unordered_map<uint64_t, uint32_t> kernel_by_key_;
  std::vector<uint32_t> kernel_of_dispatch_;
  std::vector<uint8_t> seen_;
  std::vector<std::size_t> dispatch_count_;
  std::vector<uint32_t> first_sample_, sample_order_;
  std::vector<CounterStats> dispatch_row_;
};

}  // namespace

RooflineResult compute_roofline(const Trace& trace, const RooflineOptions& options) {
  return RooflineBuilder(trace, options).build();
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

RooflineStatus roofline_status(const Trace& trace, const RooflineResult& result) {
  if (!result.kernels.empty()) return {"ok", ""};
  bool any_available = false;
  for (const auto& a : result.agents) any_available |= a.unavailable_reason.empty();
  if (!result.agents.empty() && !any_available)
    return {"unavailable", "no device of the trace has roofline counters (see devices[].reason)"};
  if (trace.counters.empty())
    return {"no_counter_data",
            "the trace holds no hardware counters (rocpd_pmc_event is empty or absent): collect them with "
            "`rocm-perf profile --roofline`, or rocprofv3 --pmc on AMD"};
  return {"no_roofline_counters",
          "the trace holds hardware counters, but none of the FLOP or byte counters the roofline needs"};
}

nlohmann::json roofline_document(const Trace& trace, const RooflineResult& result) {
  nlohmann::json devices = nlohmann::json::array();
  std::unordered_map<Index, std::size_t> device_of_agent;
  for (const auto& a : result.agents) {
    device_of_agent[a.agent] = devices.size();
    const Agent& agent = trace.agents[a.agent];
    devices.push_back({{"rocpd_agent_id", agent.rocpd_id},
                       {"arch", a.arch},
                       {"product_name", a.product_name},
                       {"counter_family", to_string(a.family)},
                       {"roofline_available", a.unavailable_reason.empty()},
                       {"reason", a.unavailable_reason.empty() ? nlohmann::json(nullptr)
                                                               : nlohmann::json(a.unavailable_reason)},
                       {"limitation", a.limitation.empty() ? nlohmann::json(nullptr) : nlohmann::json(a.limitation)},
                       {"ceilings", to_json(a.ceilings)}});
  }
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : result.kernels) {
    nlohmann::json entry = {{"name", k.name},
                            {"device", device_of_agent.at(k.agent)},
                            {"dispatch_count", k.dispatch_count},
                            {"point", to_json(k.point)}};
    if (!k.dispatches.empty()) {
      nlohmann::json ds = nlohmann::json::array();
      for (const auto& d : k.dispatches) ds.push_back({{"dispatch_id", d.dispatch_id}, {"point", to_json(d.point)}});
      entry["dispatches"] = std::move(ds);
    }
    kernels.push_back(std::move(entry));
  }
  RooflineStatus status = roofline_status(trace, result);
  return {{"schema_version", kRooflineSchemaVersion},
          {"status", status.status},
          {"reason", status.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(status.reason)},
          {"above_roof_tolerance", result.tolerance},
          {"devices", std::move(devices)},
          {"kernels", std::move(kernels)},
          {"warnings", result.warnings}};
}

}  // namespace rpl::analysis
