#pragma once
// The summaries users of nsys stats and rocprofv3 --stats reach for beside the kernel table: memory copies by
// kind (count, bytes, time, bandwidth) and NVTX / ROCTx ranges by name (count and host time).
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
};

// Every copy of `trace`, by kind, the longest total time first (ties: kind).
std::vector<CopyKindSummary> copy_summary(const Trace& trace);
// Every marker range (NVTX / ROCTx: API calls of a MARKER category) of `trace`, by name, the longest total first.
std::vector<RangeSummary> range_summary(const Trace& trace);

}  // namespace rpl::analysis
