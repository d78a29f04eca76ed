#pragma once
// One kernel launch as the analyses see it, and the model's basic types (model/trace.hpp has the rest).
#include <cstdint>
#include <limits>

namespace rpl {

using TimeNs = int64_t;  // nanoseconds, CLOCK_BOOTTIME as rocprofv3 writes (host and GPU share it)
using Index = uint32_t;  // an index into one of the Trace tables
inline constexpr Index kNoIndex = std::numeric_limits<Index>::max();

// One kernel launch as it ran.
struct Dispatch {
  TimeNs start = 0;
  TimeNs end = 0;
  int64_t dispatch_id = 0;      // process-unique dispatch id
  int64_t correlation_id = 0;   // internal correlation id shared with the launching API call; 0 = unknown
  Index process = kNoIndex;
  Index symbol = kNoIndex;      // into Trace::symbols
  Index agent = kNoIndex;
  Index queue = kNoIndex;
  Index stream = kNoIndex;
  uint32_t thread = 0;          // OS tid of the launching thread; 0 = unknown
  uint32_t grid[3] = {1, 1, 1}; // in work-items (HSA convention; NVIDIA grid * block)
  uint32_t block[3] = {1, 1, 1};
  uint32_t lds_bytes = 0;       // dispatch group segment: static + dynamic LDS / shared memory
  uint32_t scratch_bytes = 0;   // per work-item private segment
  TimeNs duration() const { return end - start; }
};

}  // namespace rpl
