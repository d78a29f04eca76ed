#pragma once
// The roofline: per kernel (and per dispatch on request) FLOPs by compute class, bytes per memory level,
// arithmetic intensity, achieved GFLOP/s and GB/s, the roof at that intensity, percent of the roof, the
// bound from the ridge point, and a flag for points above their roof (a measurement error, never a
// success). A pure function of the trace's counter samples and the ceilings; see docs/roofline.md.
//
// Scope rule: every rate is a counter's value divided by the duration of the SAME dispatches that
// produced it. A kernel's rate for counter c = sum of c over the kernel's dispatches that carry c /
// sum of those dispatches' durations. Formulas are linear in counters, so they apply to these rates;
// with counters from several replay passes each counter is timed by its own pass's dispatches.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/device_specs.hpp"
#include "analysis/roofline_counters.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// A point above a ceiling by more than this fraction is flagged. 5 %: covers the run-to-run spread of
// empirical ceilings (typically 1-3 %) and timestamp granularity on microsecond kernels; anything larger
// is not noise.
inline constexpr double kAboveRoofTolerance = 0.05;

struct RooflineOptions {
  bool per_dispatch = false;  // also compute a point for every profiled dispatch
  double above_roof_tolerance = kAboveRoofTolerance;
  const EmpiricalCeilings* empirical = nullptr;      // preferred over the table for a matching device
  std::optional<double> memory_bandwidth_gbps;       // --memory-bandwidth-gbps
};

enum class PointStatus : uint8_t {
  Ok,           // a complete point below its roof
  AboveRoof,    // complete, but above a ceiling beyond the tolerance: a measurement error
  Incomplete,   // some counters or ceilings are missing; what is known is still reported
  Unavailable,  // the architecture has no roofline counters
  BandwidthOnly,  // RDNA: the device-memory traffic is placed against its ceiling; no FLOP counters exist
};
const char* to_string(PointStatus s);  // "ok", "above_roof", "incomplete", "unavailable", "bandwidth_only"

enum class Bound : uint8_t { Unknown, Memory, Compute };
const char* to_string(Bound b);  // "unknown", "memory", "compute"

struct RooflinePoint {
  PointStatus status = PointStatus::Incomplete;
  std::vector<std::string> reasons;        // why incomplete / unavailable, or the above-roof messages
  std::vector<std::string> missing_counters;  // kernel points only; a dispatch point counts them in a reason

  std::size_t profiled_dispatches = 0;     // dispatches that carried at least one roofline counter
  double duration_ns = 0;                  // sum of those dispatches' durations

  // Per compute class / memory level; nullopt = not measured (counters missing).
  std::array<std::optional<double>, kComputeClassCount> flops_per_dispatch{};
  std::array<std::optional<double>, kComputeClassCount> gflops{};  // achieved GFLOP/s (= FLOP/ns)
  std::array<std::optional<double>, kMemLevelCount> bytes_per_dispatch{};
  std::array<std::optional<double>, kMemLevelCount> gbps{};        // achieved GB/s (= B/ns)
  std::array<std::optional<double>, kMemLevelCount> intensity{};   // FLOP/B = total GFLOP/s / GB/s
  std::array<std::optional<double>, kMemLevelCount> fraction_of_bandwidth{};  // achieved / ceiling

  std::optional<double> total_gflops;      // sum over the measured classes
  std::optional<ComputeClass> dominant;    // the class with the most FLOP/s; nullopt when no FLOPs
  std::optional<double> peak_gflops;       // ceiling of the dominant class
  std::optional<double> peak_hbm_gbps;
  std::optional<double> ridge_point;       // peak_gflops / peak_hbm_gbps, FLOP/B
  std::optional<double> roof_gflops;       // min(peak_gflops, intensity_hbm x peak_hbm_gbps)
  // Memory side: achieved hbm GB/s / ceiling; compute side: total GFLOP/s / peak. (Equal to achieved /
  // roof when both are defined; the memory form also covers kernels with no FLOPs.)
  std::optional<double> fraction_of_roof;
  Bound bound = Bound::Unknown;
  bool above_roof = false;
};

struct DispatchRoofline {
  Index dispatch = kNoIndex;  // into Trace::dispatches
  int64_t dispatch_id = 0;
  RooflinePoint point;
};

struct KernelRoofline {
  std::string name;            // display name
  Index agent = kNoIndex;      // into Trace::agents
  std::size_t dispatch_count = 0;  // all dispatches of this kernel on this agent in the trace
  RooflinePoint point;             // aggregated over the profiled dispatches
  std::vector<DispatchRoofline> dispatches;  // when RooflineOptions::per_dispatch
};

struct AgentRoofline {
  Index agent = kNoIndex;
  std::string arch;
  std::string product_name;
  CounterFamily family = CounterFamily::None;
  std::string unavailable_reason;  // the architecture has no roofline counters
  std::string limitation;          // what its points cannot place (RDNA: no FLOP counters); empty otherwise
  Ceilings ceilings;
};

struct RooflineResult {
  double tolerance = kAboveRoofTolerance;
  std::vector<AgentRoofline> agents;     // every GPU agent of the trace
  std::vector<KernelRoofline> kernels;   // by profiled time, descending; then name
  std::vector<std::string> warnings;
};

RooflineResult compute_roofline(const Trace& trace, const RooflineOptions& options = {});

// Per-counter statistics of one dispatch or one kernel.
struct CounterStats {
  double sum = 0;          // sum of the counter over the dispatches that carry it
  double duration_ns = 0;  // sum of those dispatches' durations
  uint64_t dispatches = 0;
};
struct NamedCounterStats {
  std::string counter;
  CounterStats stats;
};
// Evaluates `set` on named counter statistics (what compute_roofline does for each kernel and dispatch;
// exposed for tests and for callers that hold counters outside a Trace). "X_sum" falls back to "X" when
// only the un-suffixed counter was collected (the rocpd reader sums its dimensions).
RooflinePoint evaluate_counters(const RooflineCounterSet& set, const std::vector<NamedCounterStats>& counters,
                                const Ceilings& ceilings, double tolerance = kAboveRoofTolerance);

// "ok": at least one kernel has a point; "no_counter_data": the trace holds no hardware counters;
// "no_roofline_counters": counters, but none the roofline needs; "unavailable": no device of the trace has
// roofline counters (RDNA, unknown architectures). The reason is empty for "ok".
struct RooflineStatus {
  const char* status;
  std::string reason;
};
RooflineStatus roofline_status(const Trace& trace, const RooflineResult& result);

nlohmann::json to_json(const RooflinePoint& point);
// The roofline.json document (schemas/roofline.schema.json, schema_version "1.0").
inline constexpr const char* kRooflineSchemaVersion = "1.0";
nlohmann::json roofline_document(const Trace& trace, const RooflineResult& result);

}  // namespace rpl::analysis
