// The bottleneck classifier over kBottleneckRules. See bottleneck.hpp and docs/bottleneck-rules.md.
#include "analysis/bottleneck.hpp"
#include "support/json_optional.hpp"

#include <fmt/core.h>

#include <algorithm>

#include <nlohmann/json.hpp>

namespace rpl::analysis {
namespace {

BottleneckEvidence evaluate(const BottleneckCondition& c, const BottleneckInputs& in) {
  BottleneckEvidence e;
  e.metric = to_string(c.metric);
  e.value = in.value(c.metric);
  e.comparison = to_string(c.comparison);
  e.threshold = c.threshold;
  e.required = c.requirement == Requirement::Required;
  if (!e.value) e.passed = !e.required;
  else e.passed = c.comparison == Comparison::AtLeast ? *e.value >= c.threshold : *e.value < c.threshold;
  return e;
}


nlohmann::json label_json(const BottleneckLabel& l) {
  nlohmann::json ev = nlohmann::json::array();
  for (const auto& e : l.evidence)
    ev.push_back({{"metric", e.metric},
                  {"value", json_or_null(e.value)},
                  {"comparison", e.comparison},
                  {"threshold", e.threshold},
                  {"required", e.required},
                  {"passed", e.passed}});
  return {{"label", l.label}, {"rule", l.rule}, {"fallback", l.fallback}, {"evidence", std::move(ev)}};
}

}  // namespace

const char* to_string(BottleneckMetric m) {
  static constexpr const char* kNames[kBottleneckMetricCount] = {
      "memory_roof_fraction", "compute_roof_fraction", "roof_fraction",      "hbm_bandwidth_fraction",
      "issue_utilization",    "achieved_occupancy",    "theoretical_occupancy", "stall_fraction",
      "memory_stall_share",   "branch_efficiency",     "thread_utilization",    "duration_us",
      "device_waves",         "valu_utilization",      "mfma_utilization"};
  return kNames[static_cast<std::size_t>(m)];
}

const char* to_string(Comparison c) { return c == Comparison::AtLeast ? ">=" : "<"; }

BottleneckInputs bottleneck_inputs(const RooflinePoint* roofline, const DeepAnalysis* deep,
                                   std::optional<double> theoretical_occupancy) {
  BottleneckInputs in;
  if (roofline && roofline->status == PointStatus::BandwidthOnly) {
    // RDNA: no FLOPs, so no side of the ridge. Device-memory bandwidth at >= 60 % of its ceiling is the limit
    // on either side (on the compute side it implies >= 60 % of the compute peak as well), so it stands for
    // the memory roof's fraction; the roof fraction of the vetoes stays unknown.
    const auto hbm = roofline->fraction_of_bandwidth[static_cast<std::size_t>(MemLevel::Hbm)];
    in.set(BottleneckMetric::HbmBandwidthFraction, hbm);
    in.set(BottleneckMetric::MemoryRoofFraction, hbm);
    in.notes.push_back("bandwidth-only roofline point (no FLOP counters): its device-memory fraction stands for the "
                       "memory roof's; the side of the ridge is unknown");
  } else if (roofline) {
    if (roofline->status != PointStatus::Ok) {
      in.notes.push_back(std::string("roofline point left out: its status is '") + to_string(roofline->status) +
                         "' (only a complete point below its roof is evidence)");
    } else {
      in.bound = roofline->bound;
      in.set(BottleneckMetric::RoofFraction, roofline->fraction_of_roof);
      if (roofline->bound == Bound::Memory) in.set(BottleneckMetric::MemoryRoofFraction, roofline->fraction_of_roof);
      if (roofline->bound == Bound::Compute) in.set(BottleneckMetric::ComputeRoofFraction, roofline->fraction_of_roof);
      in.set(BottleneckMetric::HbmBandwidthFraction,
             roofline->fraction_of_bandwidth[static_cast<std::size_t>(MemLevel::Hbm)]);
    }
  }
  if (deep) {
    in.set(BottleneckMetric::IssueUtilization, deep->issue_utilization);
    in.set(BottleneckMetric::AchievedOccupancy, deep->achieved_occupancy);
    in.set(BottleneckMetric::TheoreticalOccupancy, deep->theoretical_occupancy);
    in.set(BottleneckMetric::StallFraction, deep->stall_fraction);
    in.set(BottleneckMetric::MemoryStallShare, deep->memory_stall_share);
    in.set(BottleneckMetric::BranchEfficiency, deep->branch_efficiency);
    in.set(BottleneckMetric::ThreadUtilization, deep->thread_utilization);
    in.set(BottleneckMetric::ValuUtilization, deep->valu_utilization);
    in.set(BottleneckMetric::MfmaUtilization, deep->mfma_utilization);
    in.memory_latency_cycles = deep->vmem_latency_cycles;
  }
  if (theoretical_occupancy) in.set(BottleneckMetric::TheoreticalOccupancy, theoretical_occupancy);
  return in;
}

BottleneckResult classify_bottleneck(const BottleneckInputs& inputs) {
  BottleneckResult r;
  r.inputs = inputs;
  // Rules in table order; a rule's conditions are its rows with the same (label, rule) id.
  std::vector<std::pair<std::string_view, std::string_view>> order;
  for (const auto& c : kBottleneckRules)
    if (std::find(order.begin(), order.end(), std::make_pair(c.label, c.rule)) == order.end())
      order.emplace_back(c.label, c.rule);
  for (const auto& [label, rule] : order) {
    BottleneckLabel l{std::string(label), std::string(rule), false, {}};
    bool fires = true;
    for (const auto& c : kBottleneckRules)
      if (c.label == label && c.rule == rule) {
        l.evidence.push_back(evaluate(c, inputs));
        fires = fires && l.evidence.back().passed;
      }
    if (fires) r.fired.push_back(std::move(l));
  }
  for (const auto& l : r.fired) {
    if (!r.primary) r.primary = l;
    else if (l.label != r.primary->label) {
      r.secondary = l;
      break;
    }
  }
  if (!r.primary) {
    if (inputs.bound != Bound::Unknown) {
      // A label must rest on evidence: below 60% of its roof, a kernel is not bound by it.
      const auto fraction = inputs.value(BottleneckMetric::RoofFraction);
      r.notes.push_back(fmt::format("no rule fired: no bottleneck label is supported by the evidence. The kernel is on "
                                    "the {} side of the ridge point at {} of that roof (a label needs {:.0f}% or "
                                    "another rule's evidence)",
                                    to_string(inputs.bound),
                                    fraction ? fmt::format("{:.0f}%", *fraction * 100) : std::string("an unknown share"),
                                    kSaturatedFraction * 100));
    } else {
      r.notes.push_back("no rule fired and there is no usable roofline point: no label");
    }
  }
  return r;
}

nlohmann::json to_json(const BottleneckResult& r) {
  nlohmann::json inputs = nlohmann::json::object();
  for (std::size_t m = 0; m < kBottleneckMetricCount; ++m)
    inputs[to_string(static_cast<BottleneckMetric>(m))] = json_or_null(r.inputs.values[m]);
  inputs["memory_latency_cycles"] = json_or_null(r.inputs.memory_latency_cycles);
  inputs["bound"] = to_string(r.inputs.bound);
  nlohmann::json fired = nlohmann::json::array();
  for (const auto& l : r.fired) fired.push_back(label_json(l));
  nlohmann::json notes = r.inputs.notes;
  for (const auto& n : r.notes) notes.push_back(n);
  return {{"primary", r.primary ? label_json(*r.primary) : nlohmann::json(nullptr)},
          {"secondary", r.secondary ? label_json(*r.secondary) : nlohmann::json(nullptr)},
          {"fired", std::move(fired)},
          {"inputs", std::move(inputs)},
          {"notes", std::move(notes)}};
}

nlohmann::json bottleneck_rules_json() {
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& c : kBottleneckRules)
    rules.push_back({{"label", c.label},
                     {"rule", c.rule},
                     {"metric", to_string(c.metric)},
                     {"comparison", to_string(c.comparison)},
                     {"threshold", c.threshold},
                     {"requirement", c.requirement == Requirement::Required ? "required" : "if_known"},
                     {"description", c.description}});
  return rules;
}

}  // namespace rpl::analysis
