#pragma once
// Which virtual-address ranges a replay must reserve: every captured region the application allocated
// (module variables excluded: the code-object loader places those), widened to the allocation granularity and
// merged where they touch, since several small allocations share one granule. Vendor-neutral.
#include <cstdint>
#include <vector>

#include "capture/manifest.hpp"

namespace rpl::capture {

struct PlannedRange {
  uint64_t address = 0;
  uint64_t size = 0;
  std::vector<std::size_t> regions;  // indexes into Manifest::regions
};

// Regions of kind "global" are left out. Throws rpl::Error(InputInvalid) when the granularity is not a power
// of two.
std::vector<PlannedRange> plan_reservations(const Manifest& m, uint64_t granularity);

inline bool reserved_by_replay(const Region& r) { return r.kind != "global"; }

}  // namespace rpl::capture
