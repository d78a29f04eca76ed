#pragma once
// Which virtual-address ranges a replay must reserve and map: every captured region the application allocated
// (module variables excluded: the code-object loader places those). Mappings are the regions widened to the
// allocation granularity and merged where they touch (several small allocations share one granule).
// Reservations are the mappings widened further to the driver's reservation alignment and merged: a driver may
// honour an address hint only at that alignment (NVIDIA's rounds an unaligned hint up to the next 32 MiB), so the
// whole aligned span is reserved at once and only the granules the regions occupy are backed by memory.
// Vendor-neutral.
#include <cstdint>
#include <vector>

#include "capture/manifest.hpp"

namespace rpl::capture {

struct PlannedMapping {
  uint64_t address = 0;
  uint64_t size = 0;
  std::vector<std::size_t> regions;  // indexes into Manifest::regions
};

struct PlannedReservation {
  uint64_t address = 0;
  uint64_t size = 0;
  std::vector<PlannedMapping> mappings;
};

// Regions of kind "global" are left out. Throws rpl::Error(InputInvalid) when the granularity or the alignment is
// not a power of two, or the alignment is smaller than the granularity.
std::vector<PlannedReservation> plan_reservations(const Manifest& m, uint64_t granularity, uint64_t alignment);

inline bool reserved_by_replay(const Region& r) { return r.kind != "global"; }

}  // namespace rpl::capture
