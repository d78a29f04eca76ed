#pragma once
// The AMD-specific half of a capture manifest: what an AQL dispatch and its kernel symbol contribute
// (capture side), and what the HSA replay runner reads back (replay side). The vendor-neutral fields (kernel
// identity, geometry in work-groups, dynamic LDS) are filled for every reader; the exact AQL values live in
// manifest.vendor["hsa"], which is what the AMD replay dispatches. Pure: no HSA header.
#include <cstdint>
#include <string>
#include <vector>

#include "capture/manifest.hpp"
#include "collectors/amd/aql_packet.hpp"
#include "collectors/amd/live_allocations.hpp"

namespace rpl::collectors::amd {

// The captured launch as the capture tool saw it.
struct AmdLaunchRecord {
  DecodedDispatch dispatch;         // from the application's packet
  std::string symbol_name;          // the loader's kernel symbol, "_Z7add_onePfi.kd"
  std::string mangled, demangled;   // kernel name without ".kd"
  uint32_t kernarg_size = 0, kernarg_alignment = 0;
  uint32_t static_group_segment = 0, static_private_segment = 0;  // the symbol's fixed sizes
  bool dynamic_callstack = false;
  std::string agent_name;    // "gfx942"
  std::string isa_name;      // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  std::string product_name;  // "AMD Instinct MI300X"
  uint32_t wavefront_size = 0;
  int ordinal = 0;  // among the system's GPU agents
};

// Per-region details the replay needs beyond address and size.
struct AmdRegionDetail {
  uint64_t id = 0;
  Placement placement = Placement::Unknown;
  uint64_t pool_granule = 0;  // the pool's allocation granule (0: unknown)
};

// Fills kernel, geometry, device and vendor["hsa"] (launch, regions, granularity = the largest pool granule,
// at least 4 KiB). Regions themselves are the caller's. Throws rpl::Error(InputInvalid) when the packet's
// geometry is impossible.
void fill_launch(capture::Manifest& m, const AmdLaunchRecord& r, const std::vector<AmdRegionDetail>& regions);

// What the replay runner dispatches, read back from a manifest.
struct AmdReplayLaunch {
  std::string symbol_name;
  DispatchGeometry geometry;  // exactly as captured (work-items; group/private segment as launched)
  uint32_t kernarg_size = 0, kernarg_alignment = 0;
  uint32_t static_group_segment = 0, static_private_segment = 0;
  std::string agent_name, isa_name;
  uint64_t granularity = 4096;
  std::vector<AmdRegionDetail> regions;  // by region id order as written
};

// Throws rpl::Error(InputCorrupt) naming `what` and the field when vendor["hsa"] is missing or malformed.
AmdReplayLaunch read_launch(const capture::Manifest& m, const std::string& what);

// The launch geometry for a build whose kernel has other fixed LDS / scratch sizes (--code-object): the
// dynamic parts the application added at launch are carried over unchanged.
DispatchGeometry geometry_for_build(const AmdReplayLaunch& launch, uint32_t static_group_segment,
                                    uint32_t static_private_segment);

// The placement a region was captured with (Unknown when the manifest does not say).
Placement placement_of(const AmdReplayLaunch& launch, uint64_t region_id);

}  // namespace rpl::collectors::amd
