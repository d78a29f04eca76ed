// compute_roofline: a trace's counter samples folded per (kernel, agent), and per dispatch on request, into
// counter statistics that roofline_point.cpp turns into points; and the roofline.json document. See
// roofline.hpp for the scope rule and docs/roofline.md for the definitions.
#include "analysis/roofline.hpp"
#include "analysis/roofline_point.hpp"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rpl::analysis {
namespace {

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
      evaluators_.push_back(std::make_unique<RooflineEvaluator>(std::move(set), [this](std::string_view n) { return slot_of(n); }));
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
  DispatchRoofline dispatch_point(Index d, const RooflineEvaluator& ev, const Ceilings& ceilings) {
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
      const RooflineEvaluator& ev = *evaluators_[row];
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
  std::vector<std::unique_ptr<RooflineEvaluator>> evaluators_;  // per agent row
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
