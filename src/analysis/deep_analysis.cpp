// The common deep-analysis struct: instruction classification, JSON, and the NVIDIA (ncu) mapping. The
// AMD ATT reading is in att_analysis.cpp.
#include "analysis/deep_analysis.hpp"
#include "support/json_optional.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpl::analysis {
namespace {


// ncu warp-state stall reasons (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio), as
// listed by `ncu --query-metrics --chip gh100` (ncu 2025.3.1).
constexpr std::string_view kNcuStallReasons[] = {
    "barrier",  "branch_resolving", "dispatch_stall", "drain",       "gmma",     "imc_miss",
    "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc",
    "no_instruction", "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"};
// Reasons that wait on a memory subsystem: global/local/texture (long_scoreboard, lg_throttle,
// tex_throttle), shared memory and other MIO (short_scoreboard, mio_throttle), memory barriers and
// write drain (membar, drain), constant-cache misses (imc_miss).
constexpr std::string_view kNcuMemoryReasons[] = {"long_scoreboard", "lg_throttle", "tex_throttle", "short_scoreboard",
                                                  "mio_throttle",    "membar",      "drain",        "imc_miss"};

std::string stall_metric(std::string_view reason) {
  return fmt::format("smsp__average_warps_issue_stalled_{}_per_issue_active.ratio", reason);
}

// Cycles a warp spends per issued instruction: the sum of every stall ratio above, in one metric. The CUPTI
// pass collects it with the memory reasons, selected and not_selected instead of all 19 reasons (6 replay
// passes instead of 8 with the roofline metrics on an H100): the stall fraction and the memory share stay
// exact; the non-memory reasons are then one "other" entry.
constexpr std::string_view kWarpLatency = "smsp__average_warp_latency_per_inst_issued.ratio";
constexpr std::string_view kAchievedOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr std::string_view kTheoreticalOccupancy = "sm__maximum_warps_per_active_cycle_pct";
constexpr std::string_view kIssueUtilization = "sm__inst_issued.avg.pct_of_peak_sustained_active";
constexpr std::string_view kBranchUniform = "smsp__sass_branch_targets_threads_uniform.sum";
constexpr std::string_view kBranchDivergent = "smsp__sass_branch_targets_threads_divergent.sum";
constexpr std::string_view kBranchEfficiencyPct = "smsp__sass_average_branch_targets_threads_uniform.pct";
constexpr std::string_view kThreadsPerInst = "smsp__thread_inst_executed_per_inst_executed.ratio";
constexpr std::string_view kL1HitRate = "l1tex__t_sector_hit_rate.pct";
constexpr std::string_view kL2HitRate = "lts__t_sector_hit_rate.pct";
constexpr std::string_view kDuration = "gpu__time_duration.sum";


nlohmann::json fractions(const std::vector<NamedFraction>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : v) out.push_back({{"name", f.name}, {"fraction", f.fraction}});
  return out;
}

// Percent to a 0..1 fraction; values a little above 100 % (ncu reported an L2 hit rate of 101.01 % on an
// H100) are clamped, with a note.
std::optional<double> percent(std::optional<double> v, std::string_view what, std::vector<std::string>& notes) {
  if (!v) return std::nullopt;
  if (*v < 0) {
    notes.push_back(fmt::format("{} was negative ({}); ignored", what, *v));
    return std::nullopt;
  }
  if (*v > 100) {
    notes.push_back(fmt::format("{} was reported as {}% (above 100 %); clamped to 100 %", what, *v));
    return 1.0;
  }
  return *v / 100.0;
}

}  // namespace

const char* to_string(InstCategory c) {
  static constexpr const char* kNames[kInstCategoryCount] = {"VALU", "SALU", "VMEM",   "SMEM", "LDS",
                                                             "MFMA", "BRANCH", "WAIT", "OTHER"};
  return kNames[static_cast<std::size_t>(c)];
}

InstCategory classify_instruction(std::string_view isa) {
  while (!isa.empty() && std::isspace(static_cast<unsigned char>(isa.front()))) isa.remove_prefix(1);
  std::string m;  // the mnemonic, lower case
  for (char ch : isa) {
    if (std::isspace(static_cast<unsigned char>(ch))) break;
    m += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  // Order matters: the specific prefixes come before the generic v_ and s_.
  for (std::string_view p : {"v_mfma", "v_smfmac", "v_wmma", "v_swmmac"})
    if (m.starts_with(p)) return InstCategory::Mfma;
  if (m.starts_with("v_")) return InstCategory::Valu;
  for (std::string_view p : {"s_cbranch", "s_setpc", "s_swappc", "s_call", "s_rfe"})
    if (m.starts_with(p)) return InstCategory::Branch;
  if (m == "s_branch") return InstCategory::Branch;
  for (std::string_view p : {"s_load", "s_buffer_load", "s_store", "s_buffer_store", "s_scratch_", "s_atomic",
                             "s_buffer_atomic", "s_dcache", "s_memtime", "s_memrealtime", "s_prefetch"})
    if (m.starts_with(p)) return InstCategory::Smem;
  for (std::string_view p : {"s_waitcnt", "s_wait_", "s_barrier"})
    if (m.starts_with(p)) return InstCategory::Wait;
  for (std::string_view p : {"s_nop", "s_endpgm", "s_sendmsg", "s_trap", "s_sleep", "s_sethalt", "s_setprio",
                             "s_icache", "s_ttrace", "s_code_end"})
    if (m.starts_with(p)) return InstCategory::Other;
  if (m.starts_with("s_")) return InstCategory::Salu;
  for (std::string_view p : {"global_", "buffer_", "flat_", "scratch_", "tbuffer_", "image_"})
    if (m.starts_with(p)) return InstCategory::Vmem;
  if (m.starts_with("ds_")) return InstCategory::Lds;
  return InstCategory::Other;
}

static nlohmann::json to_json_fields(const DeepAnalysis& d, nlohmann::json mix);

static nlohmann::json to_json(const AttHotLine& l) {
  return {{"isa", l.isa},
          {"category", to_string(l.category)},
          {"line", l.line < 0 ? nlohmann::json(nullptr) : nlohmann::json(l.line)},
          {"source", l.source},
          {"vaddr", l.vaddr},
          {"hits", l.hits},
          {"latency_cycles", l.latency},
          {"stall_cycles", l.stall},
          {"idle_cycles", l.idle},
          {"share", l.share}};
}

static nlohmann::json to_json(const AttWave& w) {
  auto id = [](int64_t v) { return v < 0 ? nlohmann::json(nullptr) : nlohmann::json(v); };
  return {{"shader_engine", id(w.shader_engine)},
          {"cu", id(w.cu)},
          {"simd", id(w.simd)},
          {"slot", id(w.slot)},
          {"id", id(w.id)},
          {"begin", w.begin},
          {"end", w.end},
          {"cycles",
           {{"idle", w.state_cycles[1]}, {"exec", w.state_cycles[2]}, {"wait", w.state_cycles[3]}, {"stall", w.state_cycles[4]}}},
          {"stall_fraction", json_or_null(w.stall_fraction)},
          {"instructions", w.instructions},
          {"instruction_stall_cycles", w.instruction_stall},
          {"stall_by_category", fractions(w.stall_by_category)}};
}

nlohmann::json to_json(const DeepAnalysis& d) {
  nlohmann::json mix = nlohmann::json::object();
  for (std::size_t c = 0; c < kInstCategoryCount; ++c)
    if (d.instruction_mix[c]) mix[to_string(static_cast<InstCategory>(c))] = *d.instruction_mix[c];
  nlohmann::json out = to_json_fields(d, std::move(mix));
  if (!d.hot_lines.empty()) {
    nlohmann::json lines = nlohmann::json::array();
    for (const AttHotLine& l : d.hot_lines) lines.push_back(to_json(l));
    out["hot_lines"] = std::move(lines);
  }
  if (!d.waves.empty()) {
    nlohmann::json waves = nlohmann::json::array();
    for (const AttWave& w : d.waves) waves.push_back(to_json(w));
    out["waves"] = std::move(waves);
  }
  return out;
}

static nlohmann::json to_json_fields(const DeepAnalysis& d, nlohmann::json mix) {
  return {{"source", d.source},
          {"available", d.available},
          {"notes", d.notes},
          {"achieved_occupancy", json_or_null(d.achieved_occupancy)},
          {"theoretical_occupancy", json_or_null(d.theoretical_occupancy)},
          {"mean_waves_per_cu", json_or_null(d.mean_waves_per_cu)},
          {"peak_waves_per_cu", d.peak_waves_per_cu ? nlohmann::json(*d.peak_waves_per_cu) : nlohmann::json(nullptr)},
          {"issue_utilization", json_or_null(d.issue_utilization)},
          {"stall_fraction", json_or_null(d.stall_fraction)},
          {"memory_stall_share", json_or_null(d.memory_stall_share)},
          {"stall_breakdown", fractions(d.stall_breakdown)},
          {"wave_states", fractions(d.wave_states)},
          {"instructions_executed", d.instructions_executed},
          {"instruction_mix", std::move(mix)},
          {"vmem_latency_cycles", json_or_null(d.vmem_latency_cycles)},
          {"smem_latency_cycles", json_or_null(d.smem_latency_cycles)},
          {"lds_latency_cycles", json_or_null(d.lds_latency_cycles)},
          {"waitcnt_cycles", json_or_null(d.waitcnt_cycles)},
          {"branch_efficiency", json_or_null(d.branch_efficiency)},
          {"thread_utilization", json_or_null(d.thread_utilization)},
          {"l1_hit_rate", json_or_null(d.l1_hit_rate)},
          {"l2_hit_rate", json_or_null(d.l2_hit_rate)},
          {"valu_utilization", json_or_null(d.valu_utilization)},
          {"mfma_utilization", json_or_null(d.mfma_utilization)}};
}

std::vector<std::string> ncu_deep_metrics(std::string_view arch) {
  std::vector<std::string> m = {std::string(kDuration),        std::string(kAchievedOccupancy),
                                std::string(kTheoreticalOccupancy), std::string(kIssueUtilization),
                                std::string(kBranchUniform),   std::string(kBranchDivergent),
                                std::string(kThreadsPerInst),  std::string(kL1HitRate),
                                std::string(kL2HitRate)};
  int sm = 0;
  if (arch.substr(0, 3) == "sm_") {
    for (char c : arch.substr(3))
      if (std::isdigit(static_cast<unsigned char>(c))) sm = sm * 10 + (c - '0');
      else break;
  }
  for (auto r : kNcuStallReasons)
    if (r != "gmma" || sm >= 90) m.push_back(stall_metric(r));
  return m;
}

std::vector<std::string> cupti_deep_metrics(std::string_view arch) {
  std::vector<std::string> m;
  for (auto& x : ncu_deep_metrics(arch)) {
    const bool stall = x.rfind("smsp__average_warps_issue_stalled_", 0) == 0;
    const bool kept = !stall || x == stall_metric("selected") || x == stall_metric("not_selected") ||
                      std::any_of(std::begin(kNcuMemoryReasons), std::end(kNcuMemoryReasons),
                                  [&](std::string_view r) { return x == stall_metric(r); });
    if (kept) m.push_back(std::move(x));
  }
  m.emplace_back(kWarpLatency);
  return m;
}

DeepAnalysis ncu_deep_analysis(const std::function<std::optional<double>(std::string_view)>& metric, uint32_t warp_size) {
  DeepAnalysis d;
  d.source = "ncu";
  auto& notes = d.notes;
  d.achieved_occupancy = percent(metric(kAchievedOccupancy), "achieved occupancy", notes);
  d.theoretical_occupancy = percent(metric(kTheoreticalOccupancy), "theoretical occupancy", notes);
  d.issue_utilization = percent(metric(kIssueUtilization), "issue-slot utilisation", notes);
  d.l1_hit_rate = percent(metric(kL1HitRate), "L1 hit rate", notes);
  d.l2_hit_rate = percent(metric(kL2HitRate), "L2 hit rate", notes);

  // Branch efficiency from the branch-target counts; no branches at all leaves it unknown. The .pct
  // metric alone reads 0 for a kernel without branches (seen on an H100), so 0 from it means "unknown".
  auto uniform = metric(kBranchUniform), divergent = metric(kBranchDivergent);
  if (uniform && divergent) {
    if (*uniform + *divergent > 0) d.branch_efficiency = *uniform / (*uniform + *divergent);
    else notes.push_back("no branch instructions executed: branch efficiency does not apply");
  } else if (auto pct = metric(kBranchEfficiencyPct); pct && *pct > 0) {
    d.branch_efficiency = percent(pct, "branch efficiency", notes);
  }
  if (auto threads = metric(kThreadsPerInst); threads && warp_size > 0)
    d.thread_utilization = std::clamp(*threads / warp_size, 0.0, 1.0);

  // Stalls: per issued instruction a warp spends sum(ratios) cycles; "selected" is the issue itself and
  // "not_selected" is eligible-but-waiting-for-the-scheduler (latency that is hidden). The rest stalls.
  // Both count in the total; neither is a stall reason.
  double total = 0;
  std::vector<NamedFraction> reasons;
  for (auto r : kNcuStallReasons) {
    auto v = metric(stall_metric(r));
    if (!v || *v < 0) continue;
    total += *v;
    if (r != "selected" && r != "not_selected") reasons.push_back({std::string(r), *v});
  }
  // Only some reasons measured (the CUPTI set): the total comes from the warp latency, and what the
  // measured reasons leave is "other (not memory)".
  std::size_t measured = 0;
  for (auto r : kNcuStallReasons) measured += metric(stall_metric(r)).has_value();
  if (auto latency = metric(kWarpLatency);
      latency && *latency > 0 && measured < std::size(kNcuStallReasons) - 1 && measured > 0) {
    const double rest = *latency - total;
    if (rest > 0) reasons.push_back({"other (not memory)", rest});
    total = *latency;
    notes.push_back("stall total from " + std::string(kWarpLatency) + "; non-memory reasons not measured separately");
  }
  // The stalled time is the sum of the reasons, not total - selected - not_selected: that difference loses
  // digits when the issue cycles dwarf the stalls, and a reason's share of it could then exceed 1. Summed in one
  // pass, the memory reasons' partial sums never exceed the whole's (rounding is monotonic).
  double stalled = 0, memory_sum = 0;
  for (const NamedFraction& r : reasons) {
    stalled += r.fraction;
    if (std::find(std::begin(kNcuMemoryReasons), std::end(kNcuMemoryReasons), r.name) != std::end(kNcuMemoryReasons))
      memory_sum += r.fraction;
  }
  if (total > 0) {
    d.stall_fraction = std::clamp(stalled / total, 0.0, 1.0);  // the latency path: rounding of its own
    if (stalled > 0) {
      d.memory_stall_share = memory_sum / stalled;
      for (auto& r : reasons) r.fraction /= stalled;
      std::stable_sort(reasons.begin(), reasons.end(),
                       [](const NamedFraction& a, const NamedFraction& b) { return a.fraction > b.fraction; });
      std::erase_if(reasons, [](const NamedFraction& r) { return r.fraction <= 0; });
      d.stall_breakdown = std::move(reasons);
    }
  } else {
    notes.push_back("no warp-state stall metrics: stall breakdown unavailable");
  }
  d.available = d.achieved_occupancy || d.theoretical_occupancy || d.issue_utilization || d.stall_fraction || d.branch_efficiency ||
                d.thread_utilization || d.l1_hit_rate || d.l2_hit_rate;
  if (!d.available) notes.push_back("none of the deep-analysis metrics was collected (see ncu_deep_metrics)");
  return d;
}

DeepAnalysis ncu_deep_analysis(const Trace& trace, const std::vector<Index>& dispatches, uint32_t warp_size) {
  // Which counter ids matter, and the per-dispatch durations used as weights.
  std::vector<std::string> names = ncu_deep_metrics("sm_90");
  names.emplace_back(kBranchEfficiencyPct);
  std::unordered_map<Index, std::size_t> wanted;  // string id -> names index
  for (Index s = 0; s < trace.strings.size(); ++s)
    for (std::size_t i = 0; i < names.size(); ++i)
      if (trace.strings.at(s) == names[i]) wanted.emplace(s, i);
  std::unordered_map<Index, bool> in_set;
  for (Index d : dispatches) in_set.emplace(d, true);
  std::unordered_map<Index, double> duration;
  std::vector<std::vector<std::pair<Index, double>>> values(names.size());  // (dispatch, value)
  for (const auto& c : trace.counters) {
    if (!in_set.count(c.dispatch)) continue;
    auto it = wanted.find(c.counter);
    if (it == wanted.end()) continue;
    if (names[it->second] == kDuration) duration[c.dispatch] = c.value;
    values[it->second].emplace_back(c.dispatch, c.value);
  }
  auto weight = [&](Index d) {
    auto it = duration.find(d);
    if (it != duration.end() && it->second > 0) return it->second;
    const double ts = d < trace.dispatches.size() ? static_cast<double>(trace.dispatches[d].duration()) : 0.0;
    return ts > 0 ? ts : 1.0;
  };
  std::vector<std::optional<double>> mean(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    double sum = 0, wsum = 0;
    for (const auto& [d, v] : values[i]) {
      const double w = weight(d);
      sum += w * v;
      wsum += w;
    }
    if (wsum > 0) mean[i] = sum / wsum;
  }
  return ncu_deep_analysis(
      [&](std::string_view metric) -> std::optional<double> {
        for (std::size_t i = 0; i < names.size(); ++i)
          if (names[i] == metric) return mean[i];
        return std::nullopt;
      },
      warp_size);
}

}  // namespace rpl::analysis
