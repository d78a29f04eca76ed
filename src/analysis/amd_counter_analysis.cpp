// AMD deep analysis from stored counters. Formulas and their sources: amd_counter_analysis.hpp and
// docs/roofline.md ("Deep analysis from AMD counters").
#include "analysis/amd_counter_analysis.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "analysis/roofline_counters.hpp"

namespace rpl::analysis {
namespace {

constexpr std::string_view kL1Accesses = "TCP_TOTAL_CACHE_ACCESSES_sum";
constexpr std::string_view kL1ToL2[] = {"TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum",
                                        "TCP_TCC_ATOMIC_WITH_RET_REQ_sum", "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum"};
constexpr std::string_view kGuiActive = "GRBM_GUI_ACTIVE";
constexpr std::string_view kValuBusy = "SQ_ACTIVE_INST_VALU";
constexpr std::string_view kMfmaBusy = "SQ_VALU_MFMA_BUSY_CYCLES";
constexpr std::string_view kValuThreadCycles = "SQ_THREAD_CYCLES_VALU";
// SIMDs per CU in rocprof-compute's MFMA utilisation: each of a CDNA CU's 4 SIMDs has its own matrix core.
constexpr double kMfmaUnitsPerCu = 4;

struct L2Names {
  std::string_view hit, miss;
};
L2Names l2_names(CounterFamily f) {
  if (f == CounterFamily::AmdRdna) return {"GL2C_HIT_sum", "GL2C_MISS_sum"};
  return {"TCC_HIT_sum", "TCC_MISS_sum"};
}

// XCDs (dies) of an agent, from facts per architecture (reference §4.4/§4.5): gfx942 has 38 CUs per XCD
// (MI300X 304 = 8 x 38, MI300A 228 = 6 x 38; a partitioned agent has fewer whole dies), gfx950 32 (256 = 8 x
// 32), and a gfx90a agent is one die (one GCD). 0 = unknown (no CU count, or not a whole number of dies).
uint32_t xcds_of(CounterFamily f, uint32_t cus) {
  if (cus == 0) return 0;
  if (f == CounterFamily::AmdCdna2) return 1;
  const uint32_t per_xcd = f == CounterFamily::AmdCdna3 ? 38 : f == CounterFamily::AmdCdna4 ? 32 : 0;
  if (per_xcd == 0 || cus % per_xcd != 0) return 0;
  return cus / per_xcd;
}

bool is_cdna(CounterFamily f) {
  return f == CounterFamily::AmdCdna2 || f == CounterFamily::AmdCdna3 || f == CounterFamily::AmdCdna4;
}

// Each wanted counter's mean over the dispatches that carry it. "X_sum" falls back to "X" (the rocpd
// reader sums a counter's dimension rows, so both name the same total).
class CounterMeans {
 public:
  CounterMeans(const Trace& trace, const std::vector<Index>& dispatches, const std::vector<std::string>& names) {
    std::set<Index> in_set(dispatches.begin(), dispatches.end());
    std::map<Index, std::string> wanted;  // string id -> name as stored
    for (const auto& n : names) {
      for (const std::string& stored : {n, n.size() > 4 && n.ends_with("_sum") ? n.substr(0, n.size() - 4) : n})
        for (Index s = 0; s < trace.strings.size(); ++s)
          if (trace.strings.at(s) == stored) wanted.emplace(s, stored);
    }
    for (const auto& c : trace.counters) {
      auto it = wanted.find(c.counter);
      if (it == wanted.end() || !in_set.count(c.dispatch)) continue;
      Totals& t = totals_[it->second];
      t.sum += c.value;
      t.dispatches.insert(c.dispatch);
    }
  }
  std::optional<double> mean(std::string_view name) const {
    auto it = totals_.find(std::string(name));
    if (it == totals_.end() && name.ends_with("_sum")) it = totals_.find(std::string(name.substr(0, name.size() - 4)));
    if (it == totals_.end() || it->second.dispatches.empty()) return std::nullopt;
    return it->second.sum / static_cast<double>(it->second.dispatches.size());
  }

 private:
  struct Totals {
    double sum = 0;
    std::set<Index> dispatches;
  };
  std::map<std::string, Totals, std::less<>> totals_;
};

// numerator / denominator as a 0..1 fraction; nullopt (with the reason in notes) when a counter is missing
// or the denominator is not positive.
class Formulas {
 public:
  Formulas(const CounterMeans& means, std::vector<std::string>& notes) : means_(means), notes_(notes) {}

  // Every named counter's mean, or nullopt with a note naming those not in the trace.
  std::optional<std::vector<double>> all(std::string_view metric, std::initializer_list<std::string_view> names) {
    std::vector<double> values;
    std::vector<std::string_view> missing;
    for (auto n : names) {
      if (auto v = means_.mean(n)) values.push_back(*v);
      else missing.push_back(n);
    }
    if (missing.empty()) return values;
    notes_.push_back(fmt::format("{} not computed: {} not in the trace (profile --deep, --preset compute, memory or "
                                 "full collect them)",
                                 metric, fmt::join(missing, ", ")));
    return std::nullopt;
  }

  std::optional<double> fraction(std::string_view metric, double numerator, double denominator) {
    if (!(denominator > 0)) {
      notes_.push_back(fmt::format("{} not computed: its denominator is 0 in every counted dispatch (a counter that "
                                   "reads 0 everywhere is suspect, e.g. on consumer GPUs not in the stable_std "
                                   "performance level)",
                                   metric));
      return std::nullopt;
    }
    double f = numerator / denominator;
    if (f < 0) {
      notes_.push_back(fmt::format("{} came out negative ({:.3g}); not reported", metric, f));
      return std::nullopt;
    }
    if (f > 1) {
      notes_.push_back(fmt::format("{} came out as {:.3g} (above 1): its counters come from different passes or "
                                   "runs that disagree; clamped to 1",
                                   metric, f));
      f = 1;
    }
    return f;
  }

 private:
  const CounterMeans& means_;
  std::vector<std::string>& notes_;
};

}  // namespace

std::vector<std::string> amd_deep_counters(std::string_view arch) {
  const CounterFamily f = counter_family(arch);
  std::vector<std::string> out;
  if (f == CounterFamily::AmdRdna) return {std::string(l2_names(f).hit), std::string(l2_names(f).miss)};
  if (!is_cdna(f)) return out;
  out.emplace_back(kL1Accesses);
  for (auto n : kL1ToL2) out.emplace_back(n);
  out.emplace_back(l2_names(f).hit);
  out.emplace_back(l2_names(f).miss);
  for (auto n : {kGuiActive, kValuBusy, kMfmaBusy, kValuThreadCycles}) out.emplace_back(n);
  return out;
}

DeepAnalysis amd_counter_deep_analysis(const Trace& trace, const std::vector<Index>& dispatches) {
  DeepAnalysis d;
  d.source = "counters";
  auto& notes = d.notes;
  if (dispatches.empty() || dispatches.front() >= trace.dispatches.size() ||
      trace.dispatches[dispatches.front()].agent >= trace.agents.size()) {
    notes.push_back("no counted dispatch on a known agent");
    return d;
  }
  const Agent& agent = trace.agents[trace.dispatches[dispatches.front()].agent];
  const CounterFamily family = counter_family(agent.name);
  const std::vector<std::string> names = amd_deep_counters(agent.name);
  if (names.empty()) {
    notes.push_back(fmt::format("no AMD counter formulas for architecture '{}'", agent.name));
    return d;
  }
  const CounterMeans means(trace, dispatches, names);
  Formulas f(means, notes);

  const L2Names l2 = l2_names(family);
  if (auto v = f.all("L2 hit rate", {l2.hit, l2.miss})) d.l2_hit_rate = f.fraction("L2 hit rate", (*v)[0], (*v)[0] + (*v)[1]);

  if (family == CounterFamily::AmdRdna) {
    notes.push_back(fmt::format("{} (RDNA): only the L2 hit rate has counters (GL2C_HIT, GL2C_MISS); the vL1D, VALU "
                                "and thread-utilisation counters of the CDNA formulas are not defined for it",
                                agent.name));
  } else {
    if (auto v = f.all("vL1D hit rate", {kL1Accesses, kL1ToL2[0], kL1ToL2[1], kL1ToL2[2], kL1ToL2[3]}))
      if (auto miss = f.fraction("vL1D miss share", (*v)[1] + (*v)[2] + (*v)[3] + (*v)[4], (*v)[0]))
        d.l1_hit_rate = 1.0 - *miss;

    // Active cycles of one die: GRBM_GUI_ACTIVE is summed over the agent's XCDs.
    const uint32_t xcds = xcds_of(family, agent.cu_count);
    const bool shape_known = xcds > 0;
    if (!shape_known)
      notes.push_back(agent.cu_count == 0
                          ? std::string("VALU and MFMA utilisation not computed: the agent's CU count is unknown "
                                        "(rocpd_info_agent extdata cu_count)")
                          : fmt::format("VALU and MFMA utilisation not computed: the XCD count of a {}-CU {} agent is "
                                        "unknown (not a whole number of dies)",
                                        agent.cu_count, agent.name));
    if (auto v = shape_known ? f.all("VALU utilisation", {kValuBusy, kGuiActive}) : std::nullopt)
      d.valu_utilization = f.fraction("VALU utilisation", (*v)[0], (*v)[1] / xcds * agent.cu_count);
    if (auto v = shape_known ? f.all("MFMA utilisation", {kMfmaBusy, kGuiActive}) : std::nullopt)
      d.mfma_utilization = f.fraction("MFMA utilisation", (*v)[0], (*v)[1] / xcds * agent.cu_count * kMfmaUnitsPerCu);

    const uint32_t wave = agent.wave_front_size ? agent.wave_front_size : 64;  // CDNA runs wave64 only
    if (auto v = f.all("thread utilisation", {kValuThreadCycles, kValuBusy}))
      d.thread_utilization = f.fraction("thread utilisation", (*v)[0], (*v)[1] * wave);
  }
  d.available = d.l1_hit_rate || d.l2_hit_rate || d.valu_utilization || d.mfma_utilization || d.thread_utilization;
  notes.push_back("from AMD counters with rocprof-compute's formulas; unvalidated on AMD hardware");
  return d;
}

DeepAnalysis merge_deep_analyses(DeepAnalysis c, const DeepAnalysis& att) {
  auto fill = [](std::optional<double>& into, const std::optional<double>& from) {
    if (!into) into = from;
  };
  fill(c.achieved_occupancy, att.achieved_occupancy);
  fill(c.theoretical_occupancy, att.theoretical_occupancy);
  fill(c.mean_waves_per_cu, att.mean_waves_per_cu);
  if (!c.peak_waves_per_cu) c.peak_waves_per_cu = att.peak_waves_per_cu;
  fill(c.issue_utilization, att.issue_utilization);
  fill(c.stall_fraction, att.stall_fraction);
  fill(c.memory_stall_share, att.memory_stall_share);
  if (c.stall_breakdown.empty()) c.stall_breakdown = att.stall_breakdown;
  if (c.wave_states.empty()) c.wave_states = att.wave_states;
  if (c.instructions_executed == 0) {
    c.instructions_executed = att.instructions_executed;
    c.instruction_mix = att.instruction_mix;
  }
  fill(c.vmem_latency_cycles, att.vmem_latency_cycles);
  fill(c.smem_latency_cycles, att.smem_latency_cycles);
  fill(c.lds_latency_cycles, att.lds_latency_cycles);
  fill(c.waitcnt_cycles, att.waitcnt_cycles);
  fill(c.branch_efficiency, att.branch_efficiency);
  fill(c.thread_utilization, att.thread_utilization);
  fill(c.l1_hit_rate, att.l1_hit_rate);
  fill(c.l2_hit_rate, att.l2_hit_rate);
  fill(c.valu_utilization, att.valu_utilization);
  fill(c.mfma_utilization, att.mfma_utilization);
  if (c.hot_lines.empty()) c.hot_lines = att.hot_lines;  // only ATT has them
  if (c.waves.empty()) c.waves = att.waves;
  for (const auto& n : att.notes) c.notes.push_back("ATT: " + n);
  c.available = c.available || att.available;
  c.source = "att+counters";
  return c;
}

}  // namespace rpl::analysis
