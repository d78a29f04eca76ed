// The HSA capture tool's pure logic, without a GPU: AQL packet decoding/encoding
// (collectors/amd/aql_packet.hpp), live-allocation bookkeeping (live_allocations.hpp) and the choice of the
// launch to capture (dispatch_selector.hpp). Packets are built byte by byte from the HSA spec's layout, not
// through the code under test.
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "collectors/amd/aql_packet.hpp"
#include "collectors/amd/dispatch_selector.hpp"
#include "collectors/amd/live_allocations.hpp"
#include "testing/binary_files.hpp"

namespace rpl {
namespace {

using namespace collectors::amd;
using Packet = std::array<std::byte, kAqlPacketSize>;

template <typename T>
void put(Packet& p, std::size_t offset, T v) {
  std::memcpy(p.data() + offset, &v, sizeof v);
}
template <typename T>
T get(const Packet& p, std::size_t offset) {
  T v;
  std::memcpy(&v, p.data() + offset, sizeof v);
  return v;
}

// A 2-D HIP-style launch: 64x4 work-groups of 16x16, 4 KiB of LDS, 272 bytes of scratch.
Packet spec_dispatch_packet() {
  Packet p{};
  put<uint16_t>(p, 0, 2 | (1 << 8) | (2 << 9) | (2 << 11));  // dispatch, barrier, system acquire/release
  put<uint16_t>(p, 2, 2);                                    // setup: 2 dimensions
  put<uint16_t>(p, 4, 16);
  put<uint16_t>(p, 6, 16);
  put<uint16_t>(p, 8, 1);
  put<uint32_t>(p, 12, 1024);
  put<uint32_t>(p, 16, 64);
  put<uint32_t>(p, 20, 1);
  put<uint32_t>(p, 24, 272);
  put<uint32_t>(p, 28, 4096);
  put<uint64_t>(p, 32, 0x7f00'1234'0000ull);  // kernel object
  put<uint64_t>(p, 40, 0x7f00'5678'0040ull);  // kernarg address
  put<uint64_t>(p, 56, 0xabcdefull);          // completion signal
  return p;
}

TEST(AqlPacket, DecodesEveryFieldOfASpecLayoutDispatch) {
  const Packet p = spec_dispatch_packet();
  EXPECT_EQ(packet_type(p), kPacketTypeKernelDispatch);
  const DecodedDispatch d = decode_dispatch(p);
  EXPECT_EQ(d.geometry.dimensions, 2u);
  EXPECT_EQ(d.geometry.workgroup, (std::array<uint16_t, 3>{16, 16, 1}));
  EXPECT_EQ(d.geometry.grid, (std::array<uint32_t, 3>{1024, 64, 1}));
  EXPECT_EQ(d.geometry.private_segment_size, 272u);
  EXPECT_EQ(d.geometry.group_segment_size, 4096u);
  EXPECT_EQ(d.kernel_object, 0x7f00'1234'0000ull);
  EXPECT_EQ(d.kernarg_address, 0x7f00'5678'0040ull);
  EXPECT_EQ(d.completion_signal, 0xabcdefull);
  EXPECT_EQ(checked_dimensions(d.geometry), 2u);
}

TEST(AqlPacket, EncodingReproducesTheCapturedLaunchButLeavesTheHeaderToTheSubmitter) {
  const Packet original = spec_dispatch_packet();
  const DecodedDispatch d = decode_dispatch(original);
  Packet replay;
  replay.fill(std::byte{0xee});
  put<uint16_t>(replay, 0, kPacketTypeInvalid);
  encode_dispatch_body(replay, d.geometry, 0x1111, 0x2222, 0x3333);
  EXPECT_EQ(get<uint16_t>(replay, 0), kPacketTypeInvalid) << "the header is published last, by the submitter";
  EXPECT_EQ(get<uint16_t>(replay, 2), 2);
  for (std::size_t off : {4, 6, 8}) EXPECT_EQ(get<uint16_t>(replay, off), get<uint16_t>(original, off));
  for (std::size_t off : {12, 16, 20, 24, 28}) EXPECT_EQ(get<uint32_t>(replay, off), get<uint32_t>(original, off));
  EXPECT_EQ(get<uint16_t>(replay, 10), 0) << "reserved0";
  EXPECT_EQ(get<uint64_t>(replay, 32), 0x1111u);
  EXPECT_EQ(get<uint64_t>(replay, 40), 0x2222u);
  EXPECT_EQ(get<uint64_t>(replay, 48), 0u) << "reserved2";
  EXPECT_EQ(get<uint64_t>(replay, 56), 0x3333u);
}

TEST(AqlPacket, HeaderCarriesTypeBarrierAndFenceScopes) {
  const uint16_t h = dispatch_header(true, kFenceScopeSystem, kFenceScopeSystem);
  EXPECT_EQ(h & 0xff, kPacketTypeKernelDispatch);
  EXPECT_EQ((h >> 8) & 1, 1);
  EXPECT_EQ((h >> 9) & 3, 2);
  EXPECT_EQ((h >> 11) & 3, 2);
  EXPECT_EQ(dispatch_header(false, kFenceScopeNone, kFenceScopeAgent), 2 | (1 << 11));
}

TEST(AqlPacket, BarrierBodyHasNoDependenciesAndTheCompletionSignal) {
  Packet p;
  p.fill(std::byte{0xff});
  encode_barrier_body(p, 0x4242);
  for (std::size_t i = 0; i < barrier_offset::dep_signal_count; ++i)
    EXPECT_EQ(get<uint64_t>(p, barrier_offset::dep_signals + 8 * i), 0u);
  EXPECT_EQ(get<uint64_t>(p, barrier_offset::completion_signal), 0x4242u);
}

TEST(AqlPacket, RejectsImpossibleGeometry) {
  DispatchGeometry g;
  g.dimensions = 1;
  g.grid = {256, 1, 1};
  g.workgroup = {64, 1, 1};
  EXPECT_EQ(checked_dimensions(g), 1u);
  g.grid[1] = 2;  // a second dimension in a 1-D launch
  EXPECT_EQ(checked_dimensions(g), 0u);
  g.grid = {0, 1, 1};
  EXPECT_EQ(checked_dimensions(g), 0u);
  g.grid = {256, 1, 1};
  g.dimensions = 4;
  EXPECT_EQ(checked_dimensions(g), 0u);
}

// ---- live allocations -------------------------------------------------------------------------------

Allocation pool(uint64_t base, uint64_t size, Placement placement = Placement::DeviceCoarse) {
  Allocation a;
  a.base = base;
  a.size = size;
  a.placement = placement;
  a.pool = 7;
  return a;
}

TEST(LiveAllocations, KeepsFarMoreThanTheOldCapOf256) {
  LiveAllocations live;
  const uint64_t base = 0x7f00'0000'0000ull;
  for (uint64_t i = 0; i < 5000; ++i) live.add(pool(base + i * 0x10000, 0x1000 + i));
  for (uint64_t i = 0; i < 5000; i += 2) ASSERT_TRUE(live.remove(base + i * 0x10000));
  const auto snap = live.snapshot();
  ASSERT_EQ(snap.size(), 2500u);
  for (std::size_t j = 0; j < snap.size(); ++j) {
    const uint64_t i = 2 * j + 1;
    EXPECT_EQ(snap[j].base, base + i * 0x10000);
    EXPECT_EQ(snap[j].size, 0x1000 + i);
  }
  EXPECT_FALSE(live.remove(base)) << "already freed";
  EXPECT_EQ(live.stale_dropped(), 0u);
}

TEST(LiveAllocations, AnAllocationOverAStaleRecordReplacesIt) {
  LiveAllocations live;
  live.add(pool(0x10000, 0x4000));
  live.add(pool(0x12000, 0x1000));  // the runtime reused memory whose free we never saw
  const auto snap = live.snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].base, 0x12000u);
  EXPECT_EQ(live.stale_dropped(), 1u);
}

TEST(LiveAllocations, FindsTheAllocationContainingAnAddress) {
  LiveAllocations live;
  live.add(pool(0x10000, 0x1000));
  live.add(pool(0x20000, 0x1000));
  EXPECT_EQ(live.containing(0x10fff)->base, 0x10000u);
  EXPECT_FALSE(live.containing(0x11000));
  EXPECT_FALSE(live.containing(0xffff));
  EXPECT_EQ(live.total_bytes(), 0x2000u);
}

TEST(LiveAllocations, VirtualMappingsTakeTheirHandlesPlacementAndSurvivePartialUnmaps) {
  LiveAllocations live;
  live.handle_created(/*handle=*/99, /*pool=*/5, 0x40000, Placement::DeviceFine);
  live.reserved(0x100000, 0x100000);
  EXPECT_TRUE(live.mapped(0x100000, 0x40000, 99, 0));
  live.unmapped(0x110000, 0x10000);  // a hole in the middle
  auto snap = live.snapshot();
  ASSERT_EQ(snap.size(), 2u);
  EXPECT_EQ(snap[0].base, 0x100000u);
  EXPECT_EQ(snap[0].size, 0x10000u);
  EXPECT_EQ(snap[1].base, 0x120000u);
  EXPECT_EQ(snap[1].size, 0x20000u);
  EXPECT_EQ(snap[1].handle_offset, 0x20000u) << "the right part maps the handle further in";
  EXPECT_EQ(snap[1].kind, AllocationKind::Virtual);
  EXPECT_EQ(snap[1].placement, Placement::DeviceFine);
  EXPECT_EQ(snap[1].pool, 5u);
  live.reservation_freed(0x100000, 0x100000);
  EXPECT_EQ(live.size(), 0u);
  EXPECT_EQ(live.stale_dropped(), 0u);
}

TEST(LiveAllocations, ReportsMappingsItCannotExplain) {
  LiveAllocations live;
  EXPECT_FALSE(live.mapped(0x100000, 0x1000, 1, 0)) << "no reservation, unknown handle";
  live.reserved(0x200000, 0x1000);
  EXPECT_FALSE(live.mapped(0x200000, 0x1000, 1, 0)) << "unknown handle";
  EXPECT_EQ(live.snapshot().at(1).placement, Placement::Unknown);
  EXPECT_EQ(live.size(), 2u) << "recorded anyway: the memory is live";
}

TEST(LiveAllocations, LockedHostMemoryIsFreedByItsHostPointer) {
  LiveAllocations live;
  Allocation a = pool(0x7000'0000, 0x2000, Placement::Host);
  a.kind = AllocationKind::LockedHost;
  a.host_address = 0x5555'0000;
  live.add(a);
  EXPECT_FALSE(live.remove_locked_host(0x7000'0000));
  EXPECT_TRUE(live.remove_locked_host(0x5555'0000));
  EXPECT_EQ(live.size(), 0u);
}

TEST(LiveAllocations, NamesAndPlacementsRoundTrip) {
  EXPECT_STREQ(to_string(AllocationKind::Virtual), "virtual");
  EXPECT_STREQ(to_string(AllocationKind::LockedHost), "locked_host");
  for (Placement p : {Placement::DeviceCoarse, Placement::DeviceFine, Placement::Host, Placement::Unknown})
    EXPECT_EQ(parse_placement(to_string(p)), p);
  EXPECT_FALSE(parse_placement("vram"));
}

// ---- dispatch selection -----------------------------------------------------------------------------

TEST(DispatchSelector, CapturesTheKthLaunchOfTheFirstMatchingKernelOnly) {
  DispatchSelector s("gemm", 3);
  EXPECT_FALSE(s.on_launch("_Z4copyPf", "copy(float*)"));
  EXPECT_FALSE(s.on_launch("_Z9gemm_tilePf", "gemm_tile(float*)"));  // 1st: becomes the target
  EXPECT_FALSE(s.on_launch("_Z10gemm_otherPf", "gemm_other(float*)")) << "matches, but is not the target";
  EXPECT_FALSE(s.on_launch("_Z9gemm_tilePf", "gemm_tile(float*)"));  // 2nd
  EXPECT_TRUE(s.on_launch("_Z9gemm_tilePf", "gemm_tile(float*)"));   // 3rd
  EXPECT_FALSE(s.on_launch("_Z9gemm_tilePf", "gemm_tile(float*)")) << "one capture per process";
  EXPECT_EQ(*s.target(), "_Z9gemm_tilePf");
  EXPECT_EQ(s.launches_of_target(), 3u);
  EXPECT_TRUE(s.done());
}

TEST(DispatchSelector, MatchesTheDemangledOrTheMangledName) {
  DispatchSelector by_signature("add_one\\(float\\*, int\\)", 1);
  EXPECT_TRUE(by_signature.on_launch("_Z7add_onePfi", "add_one(float*, int)"));
  DispatchSelector by_mangled("^_Z7add", 1);
  EXPECT_TRUE(by_mangled.on_launch("_Z7add_onePfi", "add_one(float*, int)"));
  DispatchSelector none("nothing", 1);
  EXPECT_FALSE(none.on_launch("_Z7add_onePfi", "add_one(float*, int)"));
  EXPECT_FALSE(none.target());
}

TEST(DispatchSelector, RejectsABadPatternOrIndex) {
  test::expect_error([] { DispatchSelector("gemm(", 1); }, ExitCode::Usage, {"gemm(", "regular expression"});
  test::expect_error([] { DispatchSelector("gemm", 0); }, ExitCode::Usage, {"counted from 1"});
}

TEST(DispatchSelector, KernelNamesLoseTheDescriptorSuffix) {
  EXPECT_EQ(kernel_name_from_symbol("_Z7add_onePfi.kd"), "_Z7add_onePfi");
  EXPECT_EQ(kernel_name_from_symbol("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(kernel_name_from_symbol(".kd"), ".kd");
}

TEST(DispatchSelector, ReplayFindsTheCapturedKernelByNameNeverTheFirstOne) {
  const std::vector<std::string> symbols = {"_Z8tile_sumPKfPf.kd", "_Z7add_onePfi.kd", "_Z12uses_scratchPfi.kd"};
  EXPECT_EQ(find_kernel_symbol("_Z7add_onePfi.kd", symbols), 1u);
  EXPECT_EQ(find_kernel_symbol("_Z12uses_scratchPfi", symbols), 2u) << "a name without the descriptor suffix";
  EXPECT_EQ(find_kernel_symbol("_Z7add_onePfi.kd", {"_Z7add_onePfi"}), 0u) << "a code object without .kd symbols";
  EXPECT_FALSE(find_kernel_symbol("_Z3fooPi.kd", symbols)) << "absent: no fallback to another kernel";
  EXPECT_FALSE(find_kernel_symbol("_Z7add_onePfi.kd", {}));
}

}  // namespace
}  // namespace rpl
