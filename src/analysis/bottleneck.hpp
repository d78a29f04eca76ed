#pragma once
// Bottleneck classifier: deterministic rules over the roofline point, occupancy and the deep analysis
// give one primary label and an optional secondary one. Every label carries the evidence values and the
// thresholds it was decided on. The rule table (kBottleneckRules) is documented in docs/bottleneck-rules.md.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/deep_analysis.hpp"
#include "analysis/roofline.hpp"

namespace rpl::analysis {

// The labels, exactly as reported.
inline constexpr std::string_view kMemoryBandwidthBound = "memory-bandwidth bound";
inline constexpr std::string_view kComputeThroughputLimited = "compute throughput limited";
inline constexpr std::string_view kDivergenceLimited = "divergence limited";
inline constexpr std::string_view kUnderOccupied = "under-occupied";
inline constexpr std::string_view kLatencyBound = "latency bound";
inline constexpr std::string_view kLaunchTailDominated = "launch and tail dominated";

// What the rules look at. All fractions are 0..1.
enum class BottleneckMetric : uint8_t {
  MemoryRoofFraction,    // roofline point (status ok) on the memory side: achieved hbm GB/s / ceiling
  ComputeRoofFraction,   // roofline point (status ok) on the compute side: achieved GFLOP/s / peak
  RoofFraction,          // either side's fraction of the roof (status ok)
  HbmBandwidthFraction,  // achieved hbm GB/s / ceiling, whichever side (status ok)
  IssueUtilization,
  AchievedOccupancy,
  TheoreticalOccupancy,
  StallFraction,
  MemoryStallShare,
  BranchEfficiency,
  ThreadUtilization,
  DurationUs,   // mean duration of the kernel's dispatches, microseconds (from the trace)
  DeviceWaves,  // blocks (workgroups) of its main launch shape / (SMs (CUs) x resident blocks per SM (CU))
  ValuUtilization,  // AMD counters: VALU busy cycles / active CU-cycles
  MfmaUtilization,  // AMD counters: MFMA busy cycles / active SIMD-cycles
};
inline constexpr std::size_t kBottleneckMetricCount = 15;
const char* to_string(BottleneckMetric m);  // "memory_roof_fraction", ...

enum class Comparison : uint8_t { AtLeast, Below };  // value >= threshold; value < threshold
const char* to_string(Comparison c);                 // ">=", "<"

// Required: the condition must be evaluable and pass. IfKnown: passes when the metric is missing (the
// condition only vetoes when there is evidence against the label).
enum class Requirement : uint8_t { Required, IfKnown };

struct BottleneckCondition {
  std::string_view label;
  std::string_view rule;  // conditions with the same rule id are ANDed; rules of one label are ORed
  BottleneckMetric metric;
  Comparison comparison;
  double threshold;
  Requirement requirement;
  std::string_view description;
};

// Thresholds, with their reasons in docs/bottleneck-rules.md.
inline constexpr double kSaturatedFraction = 0.60;   // ncu's speed-of-light rule: below 60 % of both roofs = not saturated
inline constexpr double kHighIssueUtilization = 0.80;
inline constexpr double kLowOccupancy = 0.30;
inline constexpr double kHighStallFraction = 0.50;
inline constexpr double kMemoryStallMajority = 0.50;
inline constexpr double kLowBranchEfficiency = 0.80;
inline constexpr double kLowThreadUtilization = 0.70;
inline constexpr double kShortKernelUs = 10.0;   // launch (~2-5 us) and the last wave's tail are a large share
inline constexpr double kFewDeviceWaves = 2.0;   // one or two waves of blocks: the tail is up to half the time

// In priority order: the first label whose rule fires is primary, the next different one secondary.
inline constexpr std::array<BottleneckCondition, 16> kBottleneckRules = {{
    {kMemoryBandwidthBound, "MB1", BottleneckMetric::MemoryRoofFraction, Comparison::AtLeast, kSaturatedFraction,
     Requirement::Required, "memory side of the ridge, device-memory bandwidth near its ceiling"},
    {kComputeThroughputLimited, "CT1", BottleneckMetric::ComputeRoofFraction, Comparison::AtLeast, kSaturatedFraction,
     Requirement::Required, "compute side of the ridge, FLOP rate near the peak of its precision"},
    {kComputeThroughputLimited, "CT2", BottleneckMetric::IssueUtilization, Comparison::AtLeast, kHighIssueUtilization,
     Requirement::Required, "instruction issue slots nearly all used"},
    {kComputeThroughputLimited, "CT3", BottleneckMetric::ValuUtilization, Comparison::AtLeast, kHighIssueUtilization,
     Requirement::Required, "the vector ALUs busy nearly every active cycle (AMD counters)"},
    {kComputeThroughputLimited, "CT4", BottleneckMetric::MfmaUtilization, Comparison::AtLeast, kHighIssueUtilization,
     Requirement::Required, "the matrix cores busy nearly every active cycle (AMD counters)"},
    {kLaunchTailDominated, "LT1", BottleneckMetric::DurationUs, Comparison::Below, kShortKernelUs, Requirement::Required,
     "a short kernel: launch overhead is a large share of its time"},
    {kLaunchTailDominated, "LT1", BottleneckMetric::DeviceWaves, Comparison::Below, kFewDeviceWaves,
     Requirement::Required, "few waves of blocks over the device: the last wave's tail is a large share"},
    {kDivergenceLimited, "DV1", BottleneckMetric::BranchEfficiency, Comparison::Below, kLowBranchEfficiency,
     Requirement::Required, "many branches diverge within a warp"},
    {kDivergenceLimited, "DV2", BottleneckMetric::ThreadUtilization, Comparison::Below, kLowThreadUtilization,
     Requirement::Required, "few active threads per executed instruction"},
    {kUnderOccupied, "UO1", BottleneckMetric::AchievedOccupancy, Comparison::Below, kLowOccupancy,
     Requirement::Required, "few resident waves (warps) on average"},
    {kUnderOccupied, "UO1", BottleneckMetric::RoofFraction, Comparison::Below, kSaturatedFraction, Requirement::IfKnown,
     "and no roof is saturated"},
    {kUnderOccupied, "UO2", BottleneckMetric::TheoreticalOccupancy, Comparison::Below, kLowOccupancy,
     Requirement::Required, "resources allow few resident waves (warps)"},
    {kUnderOccupied, "UO2", BottleneckMetric::RoofFraction, Comparison::Below, kSaturatedFraction, Requirement::IfKnown,
     "and no roof is saturated"},
    {kLatencyBound, "LB1", BottleneckMetric::StallFraction, Comparison::AtLeast, kHighStallFraction,
     Requirement::Required, "waves (warps) stall most of the time"},
    {kLatencyBound, "LB1", BottleneckMetric::MemoryStallShare, Comparison::AtLeast, kMemoryStallMajority,
     Requirement::Required, "mostly waiting on memory"},
    {kLatencyBound, "LB1", BottleneckMetric::HbmBandwidthFraction, Comparison::Below, kSaturatedFraction,
     Requirement::IfKnown, "while device-memory bandwidth is not saturated"},
}};
struct BottleneckInputs {
  std::array<std::optional<double>, kBottleneckMetricCount> values{};
  std::optional<double> memory_latency_cycles;  // reported as context, not a rule input (ATT vmem latency)
  Bound bound = Bound::Unknown;                 // of an ok roofline point
  std::vector<std::string> notes;               // inputs left out and why
  std::optional<double> value(BottleneckMetric m) const { return values[static_cast<std::size_t>(m)]; }
  void set(BottleneckMetric m, std::optional<double> v) { values[static_cast<std::size_t>(m)] = v; }
};

// Collects the inputs. A roofline point that is not status ok (above its roof, incomplete, unavailable)
// contributes nothing: a measurement error must not become a label. theoretical_occupancy (0..1) comes
// from analysis/occupancy when the caller has it; the deep analysis's own value is used otherwise.
BottleneckInputs bottleneck_inputs(const RooflinePoint* roofline, const DeepAnalysis* deep,
                                   std::optional<double> theoretical_occupancy = std::nullopt);

struct BottleneckEvidence {
  std::string metric;
  std::optional<double> value;  // nullopt: not measured
  std::string comparison;       // ">=" or "<"
  double threshold = 0;
  bool required = true;
  bool passed = false;
};

struct BottleneckLabel {
  std::string label;
  std::string rule;       // "MB1", ...; "fallback" when no rule fired and the roofline side decided
  bool fallback = false;
  std::vector<BottleneckEvidence> evidence;
};

struct BottleneckResult {
  std::optional<BottleneckLabel> primary;
  std::optional<BottleneckLabel> secondary;
  std::vector<BottleneckLabel> fired;       // every rule that fired, in priority order
  std::vector<std::string> notes;           // e.g. why there is no label
  BottleneckInputs inputs;
};

// Deterministic: the same inputs give the same labels. When no rule fires there is no label: the notes say
// so plainly, with the roofline side and fraction where there is a point (a kernel below 60% of every
// roof is not "bound" by either).
BottleneckResult classify_bottleneck(const BottleneckInputs& inputs);

nlohmann::json to_json(const BottleneckResult& r);
// The rule table as JSON (label, rule, metric, comparison, threshold, requirement, description).
nlohmann::json bottleneck_rules_json();

}  // namespace rpl::analysis
