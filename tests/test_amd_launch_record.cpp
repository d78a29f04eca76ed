// The AMD half of a capture manifest (collectors/amd/amd_launch_record.hpp): a captured AQL launch mapped
// onto the vendor-neutral fields and vendor.hsa, written through the real manifest writer, validated against
// schemas/capture-manifest.schema.json, and read back the way the HSA replay runner reads it.
#include <gtest/gtest.h>

#include <fstream>

#include "capture/manifest.hpp"
#include "collectors/amd/amd_launch_record.hpp"
#include "support/errors.hpp"
#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using namespace collectors::amd;
namespace fs = std::filesystem;

// tile_sum from tests/data/hip/kernels.hip launched HIP-style with 4 extra KiB of dynamic LDS, and a 1-D
// grid that is not a multiple of the work-group (a partial last work-group).
AmdLaunchRecord tile_sum_launch() {
  AmdLaunchRecord r;
  r.dispatch.geometry.dimensions = 1;
  r.dispatch.geometry.grid = {1000, 1, 1};
  r.dispatch.geometry.workgroup = {256, 1, 1};
  r.dispatch.geometry.group_segment_size = 1024 + 4096;
  r.dispatch.geometry.private_segment_size = 16;
  r.dispatch.kernel_object = 0x7f12'3456'7000;
  r.dispatch.kernarg_address = 0x7f00'0000'1000;
  r.dispatch.header = 0x1502;
  r.symbol_name = "_Z8tile_sumPKfPf.kd";
  r.mangled = "_Z8tile_sumPKfPf";
  r.demangled = "tile_sum(float const*, float*)";
  r.kernarg_size = 16;
  r.kernarg_alignment = 8;
  r.static_group_segment = 1024;
  r.static_private_segment = 0;
  r.agent_name = "gfx90a";
  r.isa_name = "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-";
  r.product_name = "AMD Instinct MI210";
  r.wavefront_size = 64;
  r.ordinal = 1;
  return r;
}

capture::Manifest manifest_for(const fs::path& dir, const AmdLaunchRecord& r, const std::vector<AmdRegionDetail>& d) {
  capture::Manifest m;
  m.platform = "rocm";
  m.producer = "test";
  m.created_utc = "2026-11-24T00:00:00Z";
  m.kernel.match_regex = "tile";
  m.kernel.dispatch_index = 2;
  const std::vector<std::byte> bytes(16, std::byte{1});
  m.code_object = capture::write_blob(dir, "code/kernel.hsaco.zst", bytes);
  m.arguments = capture::write_blob(dir, "arguments.bin.zst", bytes);
  m.parameters = {{0, 16}};
  for (const AmdRegionDetail& detail : d) {
    capture::Region region;
    region.id = detail.id;
    region.address = 0x7e00'0000'0000 + detail.id * 0x100000;
    region.size = 4096;
    region.kind = "pool";
    m.regions.push_back(region);
  }
  fill_launch(m, r, d);
  return m;
}

TEST(AmdLaunchRecord, MapsTheAqlLaunchOntoTheNeutralFields) {
  test::TempDir tmp;
  const auto m = manifest_for(tmp.path(), tile_sum_launch(), {});
  EXPECT_EQ(m.kernel.mangled_name, "_Z8tile_sumPKfPf");
  EXPECT_EQ(m.kernel.demangled_name, "tile_sum(float const*, float*)");
  EXPECT_EQ(m.geometry.grid, (std::array<uint32_t, 3>{4, 1, 1})) << "1000 work-items = 3 full + 1 partial group";
  EXPECT_EQ(m.geometry.block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(m.geometry.dynamic_shared_bytes, 4096u) << "launched LDS minus the kernel's static LDS";
  EXPECT_EQ(m.device_arch, "gfx90a");
  EXPECT_EQ(m.device_name, "AMD Instinct MI210");
  EXPECT_EQ(m.device_ordinal, 1);
  EXPECT_EQ(m.code_object_format, "hsaco");
  EXPECT_EQ(m.vendor.at("granularity"), 4096u) << "at least a page when no pool said more";
}

TEST(AmdLaunchRecord, TheManifestValidatesAndTheReplayReadsTheExactLaunchBack) {
  test::TempDir tmp;
  const std::vector<AmdRegionDetail> details = {{0, Placement::DeviceCoarse, 2 << 20}, {1, Placement::Host, 4096}};
  capture::write_manifest(tmp.path(), manifest_for(tmp.path(), tile_sum_launch(), details));
  EXPECT_EQ(test::validate_against_schema("capture-manifest", (tmp.path() / "manifest.json").string()), "");

  const capture::Manifest back = capture::read_manifest(tmp.path());
  const AmdReplayLaunch launch = read_launch(back, "manifest.json");
  EXPECT_EQ(launch.symbol_name, "_Z8tile_sumPKfPf.kd");
  EXPECT_EQ(launch.geometry.grid, (std::array<uint32_t, 3>{1000, 1, 1})) << "work-items, not rounded";
  EXPECT_EQ(launch.geometry.workgroup, (std::array<uint16_t, 3>{256, 1, 1}));
  EXPECT_EQ(launch.geometry.dimensions, 1u);
  EXPECT_EQ(launch.geometry.group_segment_size, 5120u);
  EXPECT_EQ(launch.geometry.private_segment_size, 16u);
  EXPECT_EQ(launch.kernarg_size, 16u);
  EXPECT_EQ(launch.kernarg_alignment, 8u);
  EXPECT_EQ(launch.agent_name, "gfx90a");
  EXPECT_EQ(launch.granularity, 2u << 20) << "the largest pool granule";
  EXPECT_EQ(placement_of(launch, 1), Placement::Host);
  EXPECT_EQ(placement_of(launch, 0), Placement::DeviceCoarse);
  EXPECT_EQ(placement_of(launch, 9), Placement::Unknown);
}

TEST(AmdLaunchRecord, AnotherBuildKeepsTheDynamicLdsAndScratchOfTheLaunch) {
  test::TempDir tmp;
  const AmdReplayLaunch launch = read_launch(manifest_for(tmp.path(), tile_sum_launch(), {}), "m");
  const DispatchGeometry g = geometry_for_build(launch, /*static LDS=*/2048, /*static scratch=*/64);
  EXPECT_EQ(g.group_segment_size, 2048u + 4096u);
  EXPECT_EQ(g.private_segment_size, 64u + 16u);
  EXPECT_EQ(g.grid, launch.geometry.grid);
  const DispatchGeometry same = geometry_for_build(launch, 1024, 0);
  EXPECT_EQ(same.group_segment_size, launch.geometry.group_segment_size);
  EXPECT_EQ(same.private_segment_size, launch.geometry.private_segment_size);
}

TEST(AmdLaunchRecord, RejectsAnImpossiblePacket) {
  test::TempDir tmp;
  AmdLaunchRecord r = tile_sum_launch();
  r.dispatch.geometry.workgroup[1] = 2;  // a second dimension in a 1-D launch
  test::expect_error([&] { manifest_for(tmp.path(), r, {}); }, ExitCode::InputInvalid,
                     {"_Z8tile_sumPKfPf", "impossible geometry"});
}

TEST(AmdLaunchRecord, DamagedVendorFieldsAreNamed) {
  test::TempDir tmp;
  capture::Manifest m = manifest_for(tmp.path(), tile_sum_launch(), {{0, Placement::DeviceFine, 4096}});
  auto damaged = [&](auto&& edit, const std::string& field) {
    capture::Manifest copy = m;
    edit(copy.vendor);
    test::expect_error([&] { read_launch(copy, "cap/manifest.json"); }, ExitCode::InputCorrupt, {"cap/manifest.json", field});
  };
  damaged([](nlohmann::json& v) { v.erase("hsa"); }, "vendor.hsa");
  damaged([](nlohmann::json& v) { v["hsa"].erase("kernel_symbol"); }, "kernel_symbol");
  damaged([](nlohmann::json& v) { v["hsa"]["launch"]["grid_size"] = {1, 2}; }, "launch.grid_size");
  damaged([](nlohmann::json& v) { v["hsa"]["launch"]["workgroup_size"] = {70000, 1, 1}; }, "launch.workgroup_size");
  damaged([](nlohmann::json& v) { v["hsa"]["launch"]["dimensions"] = 0; }, "launch");
  damaged([](nlohmann::json& v) { v["hsa"]["kernarg_segment_size"] = -1; }, "kernarg_segment_size");
  damaged([](nlohmann::json& v) { v["hsa"]["regions"][0]["placement"] = "vram"; }, "placement");
  damaged([](nlohmann::json& v) { v["granularity"] = 3000; }, "granularity");
}

}  // namespace
}  // namespace rpl
