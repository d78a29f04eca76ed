#pragma once
// Per-API-call statistics of the host runtime and driver calls a trace recorded (HIP runtime, HSA, CUDA
// runtime and driver, RCCL ...), like rocprofv3's --stats: for each (call name, API domain) the count, the
// total, mean, p50, p99, min and max durations and the share of all API time. Markers (ROCTx / NVTX
// ranges) are user ranges, not API calls, and are left out. Pure: reads only the in-memory trace.
#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::analysis {

struct ApiCallStats {
  std::string name;      // "hipLaunchKernel", "cudaMemcpyAsync", ...
  std::string category;  // the API domain as the trace names it ("HIP_RUNTIME_API_EXT", "CUDA_DRIVER_API", ...)
  std::size_t count = 0;
  double total_ns = 0, mean_ns = 0, p50_ns = 0, p99_ns = 0, min_ns = 0, max_ns = 0;
  double percent = 0;  // of all API time in the trace (summed durations; nested calls count in both)
};

struct ApiStatsResult {
  std::vector<ApiCallStats> calls;  // by total time, descending (then name)
  std::size_t total_calls = 0;
  double total_ns = 0;
  std::size_t markers_excluded = 0;  // ROCTx / NVTX ranges left out
};

// Whether a trace category names an API domain (not a marker range): the category ends in "_API" or
// "_API_EXT" and is not one of the marker domains.
bool is_api_category(const std::string& category);
// The q-quantile (0 <= q <= 1) of sorted values by the nearest-rank rule: the smallest value with at least
// q * n values at or below it (q = 0: the minimum). `sorted` must be ascending and non-empty.
double nearest_rank_quantile(const std::vector<double>& sorted, double q);

ApiStatsResult compute_api_stats(const Trace& trace);

}  // namespace rpl::analysis
