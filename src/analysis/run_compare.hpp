#pragma once
// Two runs compared (`rocm-perf compare A B`), the way HTA's trace diff works but on the critical path too: per
// kernel and per NVTX / ROCTx range what changed in time, calls and launch shapes, whether a change stands out of
// the runs' spread, how the critical path and its contributors moved, and where the roofline points went. Pure:
// each side is a digest the application computed from its traces.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "analysis/kernel_stats.hpp"
#include "analysis/roofline.hpp"
#include "analysis/trace_summaries.hpp"

namespace rpl::analysis {

// One side of the comparison: its representative run analysed in full, and every run's kernel time.
struct CompareSide {
  std::string label;  // what the user named (a database or a directory)
  // Summed kernel time of each traced run (one entry for a single trace; `profile` keeps N runs).
  std::vector<double> runtime_per_run_ns;
  // Per kernel display name, its summed time in each run (parallel to runtime_per_run_ns; 0 where absent).
  std::map<std::string, std::vector<double>> kernel_time_per_run_ns;
  KernelStatsResult stats;  // the representative run, shapes filled
  double critical_path_ns = 0, wall_span_ns = 0;  // the representative run's
  // The critical path of each traced run (one entry for a single trace): its spread judges the path's change.
  std::vector<double> critical_path_per_run_ns;
  std::vector<SymbolContribution> path_contributions;
  std::vector<RangeSummary> ranges;
  std::vector<KernelRoofline> roofline;  // kernels with a point (counters collected)
  std::vector<std::string> devices;      // GPU product names
};

enum class Significance { Significant, WithinNoise, Unknown };
const char* to_string(Significance s);  // "significant", "within_noise", "unknown"

// Welch's t-test of B's mean against A's (two-sided, 95%).
struct ChangeTest {
  Significance verdict = Significance::Unknown;
  // "runs": the per-run totals of both sides (each has >= 2 runs); "calls": the per-call durations of the
  // representative runs (their spread); empty when neither side has 2 samples.
  std::string basis;
  double t = 0, dof = 0;
};
ChangeTest welch_test(double mean_a, double sd_a, std::size_t n_a, double mean_b, double sd_b, std::size_t n_b,
                      std::string basis);

enum class Presence { Both, OnlyA, OnlyB };
const char* to_string(Presence p);  // "both", "only_a" (gone in B), "only_b" (new in B)

struct KernelChange {
  std::string name;
  std::string mangled_name;
  Presence presence = Presence::Both;
  bool runtime_kernel = false;
  std::size_t calls_a = 0, calls_b = 0;
  double total_a_ns = 0, total_b_ns = 0;  // representative runs (the mean over runs where both have >= 2)
  double mean_a_ns = 0, mean_b_ns = 0;    // per call, representative runs
  double delta_ns = 0;                    // total_b - total_a
  ChangeTest test;                        // of the per-run totals, else of the per-call durations
  std::vector<std::string> shapes_a, shapes_b;  // "grid 1024x1x1 block 256x1x1 lds 0", by time
  bool shapes_changed = false;
  double path_ns_a = 0, path_ns_b = 0;          // time on the critical path
  double path_fraction_a = 0, path_fraction_b = 0;
};

struct RangeChange {
  std::string name;
  Presence presence = Presence::Both;
  std::size_t count_a = 0, count_b = 0;
  TimeNs host_a_ns = 0, host_b_ns = 0;
  TimeNs gpu_busy_a_ns = 0, gpu_busy_b_ns = 0;
  std::size_t gpu_kernels_a = 0, gpu_kernels_b = 0;
};

// A kernel's roofline point in the two runs: moved (a point on both sides), gone (only A has a point: B did not
// run it, or ran it without counters) or appeared (only B has one). The fields of a side without a point are
// empty.
struct RooflineMove {
  std::string name;
  Presence presence = Presence::Both;
  std::optional<double> intensity_a, intensity_b;  // FLOP per device-memory byte
  std::optional<double> gflops_a, gflops_b;        // achieved
  std::optional<double> hbm_gbps_a, hbm_gbps_b;    // achieved device-memory bandwidth
  // The bandwidth the point is judged by: device memory where either side counted bytes there, else the
  // level with the most traffic (a kernel whose data stays in L2 moves along L2, not along HBM's zero).
  std::optional<MemLevel> bandwidth_level;
  std::optional<double> gbps_a, gbps_b;            // achieved at bandwidth_level
  std::optional<double> roof_fraction_a, roof_fraction_b;
  Bound bound_a = Bound::Unknown, bound_b = Bound::Unknown;
  // Both sides: intensity, GFLOP/s or the GB/s of any memory level both measured changed by more than
  // kRooflineMoveThreshold, or the bound changed.
  bool moved = false;
};
inline constexpr double kRooflineMoveThreshold = 0.10;
// Below this share of either run's kernel time in kernels both runs have, the runs are called unrelated.
inline constexpr double kUnrelatedSharedShare = 0.5;

struct CompareResult {
  std::string label_a, label_b;
  std::size_t runs_a = 0, runs_b = 0;
  std::vector<std::string> devices_a, devices_b;
  double runtime_a_ns = 0, runtime_b_ns = 0;  // summed kernel time: the mean over runs
  ChangeTest runtime_test;                    // "runs" basis only: a single trace has no spread of its total
  double critical_path_a_ns = 0, critical_path_b_ns = 0;  // the mean over runs (one run: that run's)
  // "runs" basis only, as the kernel time's: the critical path of one trace has no spread, and a comparison with a
  // single run on either side is said to be one (critical_path_statement).
  ChangeTest critical_path_test;
  double wall_span_a_ns = 0, wall_span_b_ns = 0;
  // Share of each run's kernel time spent in kernels (by name) the other run also launched.
  double shared_share_a = 0, shared_share_b = 0;
  std::vector<KernelChange> kernels;  // by |delta| descending, then name
  std::vector<RangeChange> ranges;    // by |host delta| descending, then name
  std::vector<RooflineMove> roofline; // by name: every kernel with a point in either run
  std::vector<std::string> warnings;  // unrelated runs, different devices
};

CompareResult compare_runs(const CompareSide& a, const CompareSide& b);

// One sentence on whether the critical path's change stands out of the runs' spread, e.g. "significant over 5
// and 5 runs (Welch's t = -8.31)", "within the runs' spread over 5 and 5 runs (Welch's t = 0.42)", or, with a
// single run on a side, "a single-run comparison (1 and 5 runs): no spread between runs to judge the change by".
std::string critical_path_statement(const CompareResult& r);

// "grid 1024x1x1 block 256x1x1 lds 0"
std::string shape_text(const LaunchShape& s);

}  // namespace rpl::analysis
