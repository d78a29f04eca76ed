#pragma once
// The summaries users of nsys stats and rocprofv3 --stats reach for beside the kernel table: memory copies by
// kind (count, bytes, time, bandwidth) and NVTX / ROCTx ranges by name (count, host time and the GPU time of the
// work launched inside them).
#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::analysis {

struct CopyKindSummary {
  std::string kind;  // "MEMORY_COPY_HOST_TO_DEVICE", ...
  std::size_t count = 0;
  uint64_t bytes = 0;
  TimeNs total_ns = 0, min_ns = 0, max_ns = 0;
  double gbps = 0;  // bytes / total time (GB/s, 1e9 bytes); 0 when the copies took no time
};

struct RangeSummary {
  std::string name;
  std::size_t count = 0;
  TimeNs total_ns = 0, min_ns = 0, max_ns = 0;  // host time between the range's push and pop
  // The GPU work launched inside the range: kernels and copies whose launching API call (same correlation id)
  // was made on the range's process and thread between its push and pop, as nsys projects NVTX ranges onto the
  // GPU. A range of unknown thread (0) takes the calls of every thread of its process. Nested ranges each count
  // the work of the ranges inside them.
  std::size_t gpu_kernels = 0, gpu_copies = 0;  // over all instances
  TimeNs gpu_busy_ns = 0;  // per instance the union of that work's intervals (concurrent streams count once), summed
  TimeNs gpu_span_ns = 0;  // per instance its first start to its last end, summed
};

// Every copy of `trace` (of one process, when given: a rank's), by kind, the longest total time first (ties: kind).
std::vector<CopyKindSummary> copy_summary(const Trace& trace, Index process = kNoIndex);
// Every marker range (NVTX / ROCTx: API calls of a MARKER category) of `trace`, by name, the longest total first,
// with the GPU time of the work `trace` holds that was launched inside (give it the whole trace, not a window).
std::vector<RangeSummary> range_summary(const Trace& trace, Index process = kNoIndex);
// The GPU work launched inside each of the given marker ranges (indices into trace.api_calls), as range_summary
// counts it: one summary per range (count 1, its host time), in the order given.
std::vector<RangeSummary> range_instance_work(const Trace& trace, const std::vector<std::size_t>& ranges);

// Across the ranks of a distributed job: each rank's summaries merged by kind / name, with the ranks that had
// them and, for ranges, the rank whose instances took longest and shortest on the host (mean per instance).
struct RankedCopyKind {
  CopyKindSummary total;  // summed over ranks (min / max over every copy)
  std::size_t ranks = 0;
};
struct RankedRange {
  RangeSummary total;  // summed over ranks
  std::size_t ranks = 0;
  int64_t slowest_rank = -1, fastest_rank = -1;
  double slowest_mean_ns = 0, fastest_mean_ns = 0;
};
template <typename Summary>
struct RankSummaries {
  int64_t rank = 0;
  const std::vector<Summary>* summaries = nullptr;
};
std::vector<RankedCopyKind> copies_across_ranks(const std::vector<RankSummaries<CopyKindSummary>>& ranks);
std::vector<RankedRange> ranges_across_ranks(const std::vector<RankSummaries<RangeSummary>>& ranks);

}  // namespace rpl::analysis
