#pragma once
// AQL kernel-dispatch packets as raw 64-byte records (HSA Platform System Architecture spec §2.9; the
// layout of hsa_kernel_dispatch_packet_t). Decoding and encoding live here, free of HSA headers, so the
// capture tool and the replay runner share them and tests can exercise them without a GPU. The HSA
// parts static_assert that hsa.h agrees with these offsets.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace rpl::collectors::amd {

inline constexpr std::size_t kAqlPacketSize = 64;

// Header bit fields (hsa_packet_header_t / hsa_packet_type_t / hsa_fence_scope_t values).
inline constexpr uint16_t kPacketTypeVendor = 0;
inline constexpr uint16_t kPacketTypeInvalid = 1;
inline constexpr uint16_t kPacketTypeKernelDispatch = 2;
inline constexpr uint16_t kPacketTypeBarrierAnd = 3;
inline constexpr unsigned kHeaderBarrierBit = 8;
inline constexpr unsigned kHeaderAcquireScopeShift = 9;
inline constexpr unsigned kHeaderReleaseScopeShift = 11;
inline constexpr uint16_t kFenceScopeNone = 0, kFenceScopeAgent = 1, kFenceScopeSystem = 2;

// Byte offsets inside a kernel-dispatch packet.
namespace dispatch_offset {
inline constexpr std::size_t header = 0, setup = 2, workgroup_x = 4, workgroup_y = 6, workgroup_z = 8,
                             grid_x = 12, grid_y = 16, grid_z = 20, private_segment = 24,
                             group_segment = 28, kernel_object = 32, kernarg_address = 40,
                             completion_signal = 56;
}
// Byte offsets inside a barrier-AND packet.
namespace barrier_offset {
inline constexpr std::size_t header = 0, dep_signals = 8, completion_signal = 56;
inline constexpr std::size_t dep_signal_count = 5;
}

uint16_t packet_type(std::span<const std::byte, kAqlPacketSize> packet);

// What a captured launch needs besides its kernel and arguments.
struct DispatchGeometry {
  std::array<uint32_t, 3> grid{1, 1, 1};       // work-items (not workgroups), per dimension
  std::array<uint16_t, 3> workgroup{1, 1, 1};  // work-items per workgroup
  uint32_t dimensions = 1;                     // 1..3, from the setup field
  uint32_t group_segment_size = 0;    // LDS bytes per workgroup as launched: static + dynamic
  uint32_t private_segment_size = 0;  // scratch bytes per work-item as launched
};

struct DecodedDispatch {
  DispatchGeometry geometry;
  uint64_t kernel_object = 0;
  uint64_t kernarg_address = 0;
  uint64_t completion_signal = 0;
  uint16_t header = 0;
};

// Reads a kernel-dispatch packet; the caller has checked packet_type() == kPacketTypeKernelDispatch.
DecodedDispatch decode_dispatch(std::span<const std::byte, kAqlPacketSize> packet);

// Fence scopes a replay dispatch uses: system acquire (memory restored by copies becomes visible) and
// system release (the results are visible to the host copy that verifies them).
uint16_t dispatch_header(bool barrier, uint16_t acquire_scope, uint16_t release_scope);

// Writes every field of a kernel-dispatch packet except the header (bytes 0-1), which the submitter
// must store last, atomically, with release ordering, once the rest of the packet is visible.
void encode_dispatch_body(std::span<std::byte, kAqlPacketSize> packet, const DispatchGeometry& geometry,
                          uint64_t kernel_object, uint64_t kernarg_address, uint64_t completion_signal);

// A barrier-AND packet body (no dependencies) with a completion signal; the header is again the
// submitter's to store last. With the barrier bit set it completes only after every earlier packet in
// its queue has completed: a drain marker.
void encode_barrier_body(std::span<std::byte, kAqlPacketSize> packet, uint64_t completion_signal);

// The setup field's dimension count (1..3); 0 when the geometry is invalid (a zero size, dimensions
// outside 1..3, or a grid/workgroup size above 1 in a dimension beyond `dimensions`).
uint32_t checked_dimensions(const DispatchGeometry& geometry);

}  // namespace rpl::collectors::amd
