#include "collectors/amd/aql_packet.hpp"

#include <cstring>

namespace rpl::collectors::amd {
namespace {

template <typename T>
T load(std::span<const std::byte, kAqlPacketSize> packet, std::size_t offset) {
  T value;
  std::memcpy(&value, packet.data() + offset, sizeof(T));
  return value;
}

template <typename T>
void store_field(std::span<std::byte, kAqlPacketSize> packet, std::size_t offset, T value) {
  std::memcpy(packet.data() + offset, &value, sizeof(T));
}

}  // namespace

uint16_t packet_type(std::span<const std::byte, kAqlPacketSize> packet) {
  return load<uint16_t>(packet, dispatch_offset::header) & 0xff;
}

DecodedDispatch decode_dispatch(std::span<const std::byte, kAqlPacketSize> packet) {
  namespace o = dispatch_offset;
  DecodedDispatch d;
  d.header = load<uint16_t>(packet, o::header);
  d.geometry.dimensions = load<uint16_t>(packet, o::setup) & 0x3;
  d.geometry.workgroup = {load<uint16_t>(packet, o::workgroup_x), load<uint16_t>(packet, o::workgroup_y),
                          load<uint16_t>(packet, o::workgroup_z)};
  d.geometry.grid = {load<uint32_t>(packet, o::grid_x), load<uint32_t>(packet, o::grid_y),
                     load<uint32_t>(packet, o::grid_z)};
  d.geometry.private_segment_size = load<uint32_t>(packet, o::private_segment);
  d.geometry.group_segment_size = load<uint32_t>(packet, o::group_segment);
  d.kernel_object = load<uint64_t>(packet, o::kernel_object);
  d.kernarg_address = load<uint64_t>(packet, o::kernarg_address);
  d.completion_signal = load<uint64_t>(packet, o::completion_signal);
  return d;
}

uint16_t dispatch_header(bool barrier, uint16_t acquire_scope, uint16_t release_scope) {
  return static_cast<uint16_t>(kPacketTypeKernelDispatch | (barrier ? 1u << kHeaderBarrierBit : 0u) |
                               (acquire_scope << kHeaderAcquireScopeShift) |
                               (release_scope << kHeaderReleaseScopeShift));
}

void encode_dispatch_body(std::span<std::byte, kAqlPacketSize> packet, const DispatchGeometry& g,
                          uint64_t kernel_object, uint64_t kernarg_address, uint64_t completion_signal) {
  namespace o = dispatch_offset;
  // Everything after the header; the header word is left as it is (the slot's INVALID type) until the
  // submitter publishes the packet.
  std::memset(packet.data() + o::setup, 0, kAqlPacketSize - o::setup);
  store_field<uint16_t>(packet, o::setup, static_cast<uint16_t>(g.dimensions));
  store_field<uint16_t>(packet, o::workgroup_x, g.workgroup[0]);
  store_field<uint16_t>(packet, o::workgroup_y, g.workgroup[1]);
  store_field<uint16_t>(packet, o::workgroup_z, g.workgroup[2]);
  store_field<uint32_t>(packet, o::grid_x, g.grid[0]);
  store_field<uint32_t>(packet, o::grid_y, g.grid[1]);
  store_field<uint32_t>(packet, o::grid_z, g.grid[2]);
  store_field<uint32_t>(packet, o::private_segment, g.private_segment_size);
  store_field<uint32_t>(packet, o::group_segment, g.group_segment_size);
  store_field<uint64_t>(packet, o::kernel_object, kernel_object);
  store_field<uint64_t>(packet, o::kernarg_address, kernarg_address);
  store_field<uint64_t>(packet, o::completion_signal, completion_signal);
}

void encode_barrier_body(std::span<std::byte, kAqlPacketSize> packet, uint64_t completion_signal) {
  std::memset(packet.data() + 2, 0, kAqlPacketSize - 2);
  store_field<uint64_t>(packet, barrier_offset::completion_signal, completion_signal);
}

uint32_t checked_dimensions(const DispatchGeometry& g) {
  if (g.dimensions < 1 || g.dimensions > 3) return 0;
  for (uint32_t i = 0; i < 3; ++i) {
    if (g.grid[i] == 0 || g.workgroup[i] == 0) return 0;
    if (i >= g.dimensions && (g.grid[i] != 1 || g.workgroup[i] != 1)) return 0;
  }
  return g.dimensions;
}

}  // namespace rpl::collectors::amd
