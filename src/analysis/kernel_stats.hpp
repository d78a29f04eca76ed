#pragma once
// Per-kernel statistics and whole-trace timing figures.
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::analysis {

enum class Stability { Stable, Moderate, Unstable };
// CV <= 0.05 stable, <= 0.10 moderate, otherwise unstable (the seeds' production manual, section 5).
Stability classify_cv(double cv);
const char* to_string(Stability s);

struct DurationStats {
  std::size_t count = 0;
  double total_ns = 0, mean_ns = 0, median_ns = 0, min_ns = 0, max_ns = 0;
  double stddev_ns = 0;  // sample standard deviation (n - 1); 0 for a single value
  double cv = 0;         // stddev / mean; 0 when mean is 0
  Stability stability = Stability::Stable;
};
// Computes the statistics of `values` (reordered in place to find the median).
DurationStats compute_duration_stats(std::vector<double>& values);

// One launch shape of a kernel: dispatches with the same grid, block and LDS / shared memory bytes
// (analysis/kernel_shapes.hpp fills these).
struct LaunchShape {
  uint32_t grid[3] = {1, 1, 1};   // work-items (HSA convention; NVIDIA grid x block)
  uint32_t block[3] = {1, 1, 1};
  uint32_t lds_bytes = 0;         // static + dynamic LDS / shared memory of the dispatch
  DurationStats durations;        // the dispatches of this shape only
  // Duration classes: one grid can carry several problem sizes (a GEMM's K does not change its grid), so
  // a shape's dispatches may fall into distinct, repeating durations. Sorted durations are split where
  // one is more than kDurationClassJump above the previous; classes too small to stand alone are merged
  // into their neighbour. class_medians_ns: each class's median, ascending; within_class_cv: the
  // time-weighted CV inside the classes (equals durations.cv with one class).
  std::vector<double> class_medians_ns;
  double within_class_cv = 0;
};

// What a kernel's stability figure measured. Dispatches of one shape: its variation is timing noise.
// Between shapes: the kernel ran with several shapes and its spread is (mostly) their different sizes.
// Within a duration class of one shape: timing noise. Between classes: problem sizes the shape does not show.
enum class VariationScope { WithinShape, WithinDurationClass, BetweenShapes };
// "between dispatches of one shape", "between dispatches of one shape and duration class", "between shapes"
const char* to_string(VariationScope s);

struct KernelStats {
  std::string name;          // display (demangled) name
  std::string mangled_name;  // of the first symbol seen with this name
  bool runtime_kernel = false;
  DurationStats durations;
  double share_of_gpu_time = 0;  // total / sum over all kernels
  std::vector<Index> symbols;    // every KernelSymbol with this name (several processes)
  // Filled by compute_kernel_shapes; empty before. Sorted by total time, descending.
  std::vector<LaunchShape> shapes;
  // The dispatch-to-dispatch variation within shapes: the time-weighted mean CV of the shapes with at
  // least 2 dispatches (0 when none has 2), and its class. `durations.cv` mixes shapes.
  double within_shape_cv = 0;
  Stability within_shape_stability = Stability::Stable;
  // The same within each shape's duration classes: the timing noise the kernel's stability is classed by.
  double within_class_cv = 0;
  Stability stability = Stability::Stable;
  bool has_duration_classes = false;  // some shape has more than one class
};

// Whole-trace timing. The unions (kernel_busy_ns, gpu_busy_ns) are taken over every dispatch / copy
// of the trace together, across all agents and processes: they measure the time during which at
// least one GPU of the trace was busy, not the busy time of each device (two GPUs busy over the same
// second count one second). Timestamps of all processes share CLOCK_BOOTTIME, so this holds for
// processes of one host; for traces merged from several hosts the unions are not meaningful.
// Zero-length records count in the totals and the wall bounds and add nothing to the unions.
struct TraceTiming {
  std::size_t dispatch_count = 0;
  std::size_t copy_count = 0;
  std::size_t process_count = 0;  // Trace::processes.size()
  double runtime_ns = 0;          // SUM(dispatch end - start): the seeds' runtime
  double kernel_busy_ns = 0;      // union of dispatch intervals
  double gpu_busy_ns = 0;         // union of dispatch and copy intervals
  double copy_time_ns = 0;        // SUM(copy end - start)
  TimeNs wall_start_ns = 0;       // earliest start of any dispatch or copy
  TimeNs wall_end_ns = 0;         // latest end
  double wall_span_ns = 0;
};

struct KernelStatsResult {
  TraceTiming timing;
  std::vector<KernelStats> kernels;  // sorted by total time, descending (ties: name ascending)
  int dominant = -1;                 // index into kernels of the largest non-runtime kernel; -1 if none
};

// Groups dispatches by display name (a symbol without one groups by its mangled name) across all
// processes; names with no dispatch are left out. Ties in total time are ordered by name. Throws
// rpl::Error(InputInvalid) for a dispatch or copy that ends before it starts or a dispatch whose symbol
// index is outside Trace::symbols.
KernelStatsResult compute_kernel_stats(const Trace& trace);

}  // namespace rpl::analysis
