#pragma once
// Launch shapes: one kernel launched with several problem sizes (a GEMM on several matrix shapes) shows a
// wide spread of durations that is not noise. Grouping its dispatches by grid, block and LDS / shared
// memory separates the two: each shape's own CV is the timing noise, the spread between shapes is the
// workload.
#include "analysis/kernel_stats.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// Fills shapes, within_shape_cv and within_shape_stability of every kernel of `stats` (matched by symbol);
// one pass over the dispatches plus a sort of each kernel's durations by shape, O(N log N).
void compute_kernel_shapes(const Trace& trace, KernelStatsResult& stats);

// The minimum dispatches of one shape for its CV to count in within_shape_cv.
inline constexpr std::size_t kMinDispatchesForShapeCv = 2;
// A sorted duration more than 20% above the previous one starts a new duration class ...
inline constexpr double kDurationClassJump = 1.20;
// ... which stands alone only with at least 3 dispatches and 5% of the shape's dispatches.
inline constexpr std::size_t kMinClassDispatches = 3;
inline constexpr double kMinClassShare = 0.05;

}  // namespace rpl::analysis
