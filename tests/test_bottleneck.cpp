// Bottleneck classifier: every threshold just below / at / just above, priorities between labels, the
// IfKnown vetoes, roofline points that must not count (above the roof), the fallback, evidence, JSON and
// the documentation of the rule table.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/bottleneck.hpp"
#include "testing/cli.hpp"
#include "testing/counter_trace.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::analysis;

namespace {

constexpr double kEps = 1e-9;

BottleneckInputs with(std::initializer_list<std::pair<BottleneckMetric, double>> values) {
  BottleneckInputs in;
  for (const auto& [m, v] : values) in.set(m, v);
  return in;
}

bool fired(const BottleneckResult& r, std::string_view label) {
  for (const auto& l : r.fired)
    if (l.label == label) return true;
  return false;
}

std::string primary(const BottleneckResult& r) { return r.primary ? r.primary->label : "<none>"; }
std::string secondary(const BottleneckResult& r) { return r.secondary ? r.secondary->label : "<none>"; }

RooflinePoint ok_point(Bound bound, double fraction) {
  RooflinePoint p;
  p.status = PointStatus::Ok;
  p.bound = bound;
  p.fraction_of_roof = fraction;
  p.fraction_of_bandwidth[static_cast<std::size_t>(MemLevel::Hbm)] = bound == Bound::Memory ? fraction : 0.1;
  return p;
}

struct Boundary {
  std::string_view label;
  BottleneckMetric metric;
  double threshold;
  bool fires_above;  // AtLeast: fires at and above; Below: fires below only
  std::initializer_list<std::pair<BottleneckMetric, double>> others;  // co-conditions that pass
};

}  // namespace

TEST(BottleneckBoundaries, EveryThresholdBelowAtAndAbove) {
  const Boundary cases[] = {
      {kMemoryBandwidthBound, BottleneckMetric::MemoryRoofFraction, kSaturatedFraction, true, {}},
      {kComputeThroughputLimited, BottleneckMetric::ComputeRoofFraction, kSaturatedFraction, true, {}},
      {kComputeThroughputLimited, BottleneckMetric::IssueUtilization, kHighIssueUtilization, true, {}},
      {kComputeThroughputLimited, BottleneckMetric::ValuUtilization, kHighIssueUtilization, true, {}},
      {kComputeThroughputLimited, BottleneckMetric::MfmaUtilization, kHighIssueUtilization, true, {}},
      {kDivergenceLimited, BottleneckMetric::BranchEfficiency, kLowBranchEfficiency, false, {}},
      {kDivergenceLimited, BottleneckMetric::ThreadUtilization, kLowThreadUtilization, false, {}},
      {kUnderOccupied, BottleneckMetric::AchievedOccupancy, kLowOccupancy, false, {}},
      {kUnderOccupied, BottleneckMetric::TheoreticalOccupancy, kLowOccupancy, false, {}},
      {kLatencyBound, BottleneckMetric::StallFraction, kHighStallFraction, true,
       {{BottleneckMetric::MemoryStallShare, 0.9}}},
      {kLatencyBound, BottleneckMetric::MemoryStallShare, kMemoryStallMajority, true,
       {{BottleneckMetric::StallFraction, 0.9}}},
      // The vetoes: under-occupied only while no roof is saturated, latency only while bandwidth is not.
      {kUnderOccupied, BottleneckMetric::RoofFraction, kSaturatedFraction, false,
       {{BottleneckMetric::AchievedOccupancy, 0.1}}},
      {kLatencyBound, BottleneckMetric::HbmBandwidthFraction, kSaturatedFraction, false,
       {{BottleneckMetric::StallFraction, 0.9}, {BottleneckMetric::MemoryStallShare, 0.9}}},
  };
  for (const auto& c : cases) {
    for (const auto& [offset, name] : {std::pair{-kEps, "just below"}, {0.0, "at"}, {kEps, "just above"}}) {
      BottleneckInputs in = with(c.others);
      in.set(c.metric, c.threshold + offset);
      const bool expect = c.fires_above ? offset >= 0 : offset < 0;
      EXPECT_EQ(fired(classify_bottleneck(in), c.label), expect)
          << c.label << ": " << to_string(c.metric) << " " << name << " " << c.threshold;
    }
  }
}

TEST(BottleneckBoundaries, ThresholdsMatchTheTable) {
  EXPECT_EQ(kSaturatedFraction, 0.60);
  EXPECT_EQ(kHighIssueUtilization, 0.80);
  EXPECT_EQ(kLowOccupancy, 0.30);
  EXPECT_EQ(kHighStallFraction, 0.50);
  EXPECT_EQ(kMemoryStallMajority, 0.50);
  EXPECT_EQ(kLowBranchEfficiency, 0.80);
  EXPECT_EQ(kLowThreadUtilization, 0.70);
  std::set<std::string_view> labels;
  for (const auto& c : kBottleneckRules) labels.insert(c.label);
  EXPECT_EQ(kShortKernelUs, 10.0);
  EXPECT_EQ(kFewDeviceWaves, 2.0);
  EXPECT_EQ(labels, (std::set<std::string_view>{kMemoryBandwidthBound, kComputeThroughputLimited, kDivergenceLimited,
                                                kUnderOccupied, kLatencyBound, kLaunchTailDominated}));
}

TEST(BottleneckPriority, RequiredMetricMissingMeansTheRuleDoesNotFire) {
  // Latency needs both the stall fraction and the memory share.
  EXPECT_FALSE(fired(classify_bottleneck(with({{BottleneckMetric::StallFraction, 0.9}})), kLatencyBound));
  EXPECT_FALSE(fired(classify_bottleneck(with({{BottleneckMetric::MemoryStallShare, 0.9}})), kLatencyBound));
  // An empty input fires nothing and has no label.
  BottleneckResult none = classify_bottleneck({});
  EXPECT_FALSE(none.primary);
  EXPECT_FALSE(none.secondary);
  ASSERT_FALSE(none.notes.empty());
  EXPECT_NE(none.notes[0].find("no label"), std::string::npos);
}

TEST(BottleneckPriority, SaturatedBandwidthWinsAndVetoesUnderOccupancy) {
  RooflinePoint p = ok_point(Bound::Memory, 0.9);
  DeepAnalysis d;
  d.achieved_occupancy = 0.2;
  d.stall_fraction = 0.8;
  d.memory_stall_share = 0.9;
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(&p, &d));
  EXPECT_EQ(primary(r), kMemoryBandwidthBound);
  EXPECT_EQ(r.primary->rule, "MB1");
  EXPECT_FALSE(fired(r, kUnderOccupied));  // roof saturated: low occupancy is not the limit
  EXPECT_FALSE(fired(r, kLatencyBound));   // bandwidth saturated: the stalls are queueing, not latency
  EXPECT_EQ(secondary(r), "<none>");
}

TEST(BottleneckPriority, UnderOccupiedThenLatency) {
  RooflinePoint p = ok_point(Bound::Memory, 0.2);
  DeepAnalysis d;
  d.achieved_occupancy = 0.15;
  d.stall_fraction = 0.7;
  d.memory_stall_share = 0.8;
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(&p, &d));
  EXPECT_EQ(primary(r), kUnderOccupied);
  EXPECT_EQ(secondary(r), kLatencyBound);
  // With enough waves the same stalls make it latency bound, nothing second.
  d.achieved_occupancy = 0.6;
  BottleneckResult q = classify_bottleneck(bottleneck_inputs(&p, &d));
  EXPECT_EQ(primary(q), kLatencyBound);
  EXPECT_EQ(secondary(q), "<none>");
}

TEST(BottleneckPriority, ComputeThenDivergence) {
  DeepAnalysis d;
  d.issue_utilization = 0.85;
  d.thread_utilization = 0.5;
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(nullptr, &d));
  EXPECT_EQ(primary(r), kComputeThroughputLimited);
  EXPECT_EQ(r.primary->rule, "CT2");
  EXPECT_EQ(secondary(r), kDivergenceLimited);
  EXPECT_EQ(r.secondary->rule, "DV2");
}

TEST(BottleneckPriority, SecondaryIsADifferentLabel) {
  // CT1 and CT2 both fire; the secondary must not repeat the primary's label.
  RooflinePoint p = ok_point(Bound::Compute, 0.9);
  DeepAnalysis d;
  d.issue_utilization = 0.9;
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(&p, &d));
  EXPECT_EQ(primary(r), kComputeThroughputLimited);
  EXPECT_EQ(r.primary->rule, "CT1");
  EXPECT_EQ(r.fired.size(), 2u);
  EXPECT_EQ(secondary(r), "<none>");
}

TEST(BottleneckRoofline, AboveRoofAndIncompletePointsAreNotEvidence) {
  for (PointStatus s : {PointStatus::AboveRoof, PointStatus::Incomplete, PointStatus::Unavailable}) {
    RooflinePoint p = ok_point(Bound::Memory, 1.5);
    p.status = s;
    p.above_roof = s == PointStatus::AboveRoof;
    BottleneckInputs in = bottleneck_inputs(&p, nullptr);
    EXPECT_FALSE(in.value(BottleneckMetric::MemoryRoofFraction)) << to_string(s);
    EXPECT_EQ(in.bound, Bound::Unknown);
    BottleneckResult r = classify_bottleneck(in);
    EXPECT_FALSE(r.primary) << "a " << to_string(s) << " point became a label";
    nlohmann::json j = to_json(r);
    EXPECT_NE(j["notes"][0].get<std::string>().find(to_string(s)), std::string::npos);
  }
}

// Issue 13: a layer-norm kernel at 19% of the HBM roof was called "memory-bandwidth bound" because no rule
// fired and the side of the ridge decided. No evidence, no label: the notes say so plainly.
TEST(BottleneckRoofline, NoRuleFiredMeansNoLabel) {
  RooflinePoint m = ok_point(Bound::Memory, 0.19);
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(&m, nullptr));
  EXPECT_FALSE(r.primary);
  EXPECT_FALSE(r.secondary);
  EXPECT_TRUE(r.fired.empty());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("no rule fired"), std::string::npos) << r.notes[0];
  EXPECT_NE(r.notes[0].find("memory side"), std::string::npos) << r.notes[0];
  EXPECT_NE(r.notes[0].find("19%"), std::string::npos) << r.notes[0];
  RooflinePoint c = ok_point(Bound::Compute, 0.3);
  BottleneckResult rc = classify_bottleneck(bottleneck_inputs(&c, nullptr));
  EXPECT_FALSE(rc.primary);
  EXPECT_NE(rc.notes[0].find("compute side"), std::string::npos) << rc.notes[0];
}

// LT1: short and few waves; either alone is not enough, and a saturated roof still wins (priority).
TEST(BottleneckRoofline, ShortKernelsWithFewWavesAreLaunchAndTailDominated) {
  RooflinePoint m = ok_point(Bound::Memory, 0.19);
  BottleneckInputs in = bottleneck_inputs(&m, nullptr);
  in.set(BottleneckMetric::DurationUs, 4.0);
  in.set(BottleneckMetric::DeviceWaves, 0.5);
  EXPECT_EQ(primary(classify_bottleneck(in)), kLaunchTailDominated);
  in.set(BottleneckMetric::DurationUs, 12.0);
  EXPECT_FALSE(classify_bottleneck(in).primary);
  in.set(BottleneckMetric::DurationUs, 4.0);
  in.set(BottleneckMetric::DeviceWaves, 3.0);
  EXPECT_FALSE(classify_bottleneck(in).primary);
  in.set(BottleneckMetric::DeviceWaves, 1.0);
  in.set(BottleneckMetric::DurationUs, std::nullopt);
  EXPECT_FALSE(classify_bottleneck(in).primary);  // required: unknown duration does not fire
  RooflinePoint hot = ok_point(Bound::Memory, 0.8);
  BottleneckInputs saturated = bottleneck_inputs(&hot, nullptr);
  saturated.set(BottleneckMetric::DurationUs, 4.0);
  saturated.set(BottleneckMetric::DeviceWaves, 0.5);
  BottleneckResult r = classify_bottleneck(saturated);
  EXPECT_EQ(primary(r), kMemoryBandwidthBound);
  ASSERT_TRUE(r.secondary);
  EXPECT_EQ(r.secondary->label, kLaunchTailDominated);
}

TEST(BottleneckInputsTest, TheoreticalOccupancyFromTheCallerWins) {
  DeepAnalysis d;
  d.theoretical_occupancy = 0.9;
  BottleneckInputs in = bottleneck_inputs(nullptr, &d, 0.25);
  EXPECT_DOUBLE_EQ(*in.value(BottleneckMetric::TheoreticalOccupancy), 0.25);
  EXPECT_EQ(primary(classify_bottleneck(in)), kUnderOccupied);
  d.vmem_latency_cycles = 504.95;
  EXPECT_DOUBLE_EQ(*bottleneck_inputs(nullptr, &d).memory_latency_cycles, 504.95);
}

TEST(BottleneckEvidence, EveryLabelCarriesValuesAndThresholds) {
  DeepAnalysis d;
  d.stall_fraction = 0.75;
  d.memory_stall_share = 0.6;
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(nullptr, &d));
  ASSERT_EQ(primary(r), kLatencyBound);
  const auto& ev = r.primary->evidence;
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].metric, "stall_fraction");
  EXPECT_DOUBLE_EQ(*ev[0].value, 0.75);
  EXPECT_EQ(ev[0].comparison, ">=");
  EXPECT_DOUBLE_EQ(ev[0].threshold, 0.5);
  EXPECT_TRUE(ev[0].passed);
  EXPECT_EQ(ev[2].metric, "hbm_bandwidth_fraction");
  EXPECT_FALSE(ev[2].value.has_value());  // not measured: an IfKnown condition that passed
  EXPECT_FALSE(ev[2].required);
  EXPECT_TRUE(ev[2].passed);
  // Deterministic.
  EXPECT_EQ(to_json(r).dump(), to_json(classify_bottleneck(bottleneck_inputs(nullptr, &d))).dump());
}

TEST(BottleneckJson, ValidatesInsideARooflineDocument) {
  test::CounterTraceBuilder b;
  Index gpu = b.agent("gfx942", "AMD Instinct MI300X", 304);
  Index d = b.dispatch(b.kernel("k"), gpu, 0, 1000);
  for (const auto& name : roofline_counter_names(roofline_counter_set("gfx942")))
    b.counter(d, name, name == "TCC_EA0_RDREQ_sum" ? 1000.0 : 0.0);
  RooflineResult rr = compute_roofline(b.trace());
  nlohmann::json doc = roofline_document(b.trace(), rr);
  DeepAnalysis deep;
  deep.source = "att";
  deep.available = true;
  deep.stall_fraction = 0.7;
  deep.memory_stall_share = 0.8;
  deep.instruction_mix[static_cast<std::size_t>(InstCategory::Mfma)] = 0.25;
  deep.stall_breakdown.push_back({"WAIT", 0.6});
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(&rr.kernels[0].point, &deep));
  doc["kernels"][0]["deep_analysis"] = to_json(deep);
  doc["kernels"][0]["bottleneck"] = to_json(r);
  test::TempDir dir;
  const std::string path = dir.file("roofline.json");
  std::ofstream(path) << doc.dump(2);
  EXPECT_EQ(test::validate_against_schema("roofline", path), "");
  EXPECT_EQ(doc["kernels"][0]["bottleneck"]["primary"]["label"], "latency bound");
}

TEST(BottleneckDocs, RuleTableIsDocumented) {
  std::ifstream in(std::string(RPL_SOURCE_DIR) + "/docs/bottleneck-rules.md");
  ASSERT_TRUE(in) << "docs/bottleneck-rules.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const nlohmann::json rules = bottleneck_rules_json();
  EXPECT_EQ(rules.size(), kBottleneckRules.size());
  for (const auto& c : kBottleneckRules) {
    EXPECT_NE(doc.find(std::string("| ") + std::string(c.rule) + " |"), std::string::npos) << c.rule;
    EXPECT_NE(doc.find(to_string(c.metric)), std::string::npos) << to_string(c.metric);
    EXPECT_NE(doc.find(std::string(c.label)), std::string::npos) << c.label;
  }
  for (double t : {kSaturatedFraction, kHighIssueUtilization, kLowOccupancy, kHighStallFraction, kLowBranchEfficiency,
                   kLowThreadUtilization}) {
    std::ostringstream s;
    s << t;
    EXPECT_NE(doc.find(s.str()), std::string::npos) << t;
  }
}

TEST(BottleneckRdna, ABandwidthOnlyPointIsBandwidthBoundAboveTheThresholdAndNotBelow) {
  // RDNA: no FLOPs, so no side of the ridge; the device-memory fraction stands for the memory roof's.
  RooflinePoint p;
  p.status = PointStatus::BandwidthOnly;
  p.fraction_of_bandwidth[static_cast<std::size_t>(MemLevel::Hbm)] = 0.7;
  BottleneckResult r = classify_bottleneck(bottleneck_inputs(&p, nullptr));
  EXPECT_EQ(primary(r), kMemoryBandwidthBound);
  EXPECT_FALSE(r.inputs.value(BottleneckMetric::RoofFraction));  // the other roof stays unknown
  p.fraction_of_bandwidth[static_cast<std::size_t>(MemLevel::Hbm)] = 0.3;
  DeepAnalysis d;
  d.stall_fraction = 0.8;
  d.memory_stall_share = 0.9;
  r = classify_bottleneck(bottleneck_inputs(&p, &d));
  EXPECT_FALSE(fired(r, kMemoryBandwidthBound));
  EXPECT_EQ(primary(r), kLatencyBound);  // bandwidth known and not saturated: the latency rule may fire
  bool noted = false;
  for (const auto& n : r.inputs.notes) noted |= n.find("bandwidth-only") != std::string::npos;
  EXPECT_TRUE(noted);
}
