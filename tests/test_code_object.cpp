// AMD kernel resources from code objects and HIP fat binaries (collectors/amd/code_object.hpp,
// collectors/kernel_resources.hpp; bundles alone: test_offload_bundle.cpp). Two sources of code objects:
//  - tests/data/hip/kernels-gfx90a.co, committed, built from tests/data/hip/kernels.hip by
//    make_code_objects.sh with Debian bookworm's hipcc 5.2.3 (clang 15.0.6); always tested;
//  - the same kernels compiled at build time by the hipcc found on this machine for gfx90a, gfx940 and
//    gfx1030, plus a host executable, a shared library and a device-only bundle, checked against
//    llvm-readelf --notes from the same toolchain. Those tests skip, saying why, without hipcc.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <sstream>

#include "collectors/amd/code_object.hpp"
#include "collectors/kernel_resources.hpp"
#include "testing/binary_files.hpp"
#include "testing/gpu_binaries.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using collectors::BinaryKernelResources;
using collectors::read_kernel_resources;
using test::by_name;
using test::expect_error;
using test::read_binary;
using test::write_binary;

const std::string kFixture = std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co";

collectors::amd::CodeObject read_co(const std::vector<std::byte>& bytes, const std::string& what = "test.co") {
  return collectors::amd::read_code_object(collectors::Bytes(bytes), what);
}

// ---- the committed gfx90a code object ---------------------------------------------------------------

// Expected values, as `llvm-readelf-15 --notes tests/data/hip/kernels-gfx90a.co` prints them:
//   kernel                .sgpr .vgpr .agpr  LDS  scratch kernarg wave max_flat
//   _Z7add_onePfi           11     3     0     0      0     12     64   1024
//   _Z8tile_sumPKfPf        10    18     0  1024      0     16     64   1024
//   _Z10uses_agprsPf         6     5     1     0      0      8     64    256
//   _Z12uses_scratchPfi     18     5     0     0    272     12     64   1024
// amdhsa.target amdgcn-amd-amdhsa--gfx90a, amdhsa.version [1, 1]; ELF OS/ABI 64, ABI version 2.
struct Expected {
  const char* name;
  uint32_t sgpr, vgpr, agpr, lds, scratch, kernarg, wave, max_flat;
};
constexpr Expected kGfx90a[] = {
    {"_Z7add_onePfi", 11, 3, 0, 0, 0, 12, 64, 1024},
    {"_Z8tile_sumPKfPf", 10, 18, 0, 1024, 0, 16, 64, 1024},
    {"_Z10uses_agprsPf", 6, 5, 1, 0, 0, 8, 64, 256},
    {"_Z12uses_scratchPfi", 18, 5, 0, 0, 272, 12, 64, 1024},
};

TEST(CodeObject, ReadsEveryKernelOfTheCommittedGfx90aObject) {
  const auto co = read_co(read_binary(kFixture));
  EXPECT_EQ(co.target, "amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(co.processor, "gfx90a");
  EXPECT_EQ(co.code_object_version, 4);  // amdhsa.version [1, 1] = v(1 + 3)
  ASSERT_EQ(co.kernels.size(), std::size(kGfx90a));
  for (std::size_t i = 0; i < co.kernels.size(); ++i) {
    const auto& k = co.kernels[i];
    const auto& e = kGfx90a[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(k.name, e.name);
    EXPECT_EQ(k.symbol, std::string(e.name) + ".kd");
    EXPECT_EQ(k.sgpr_count, e.sgpr);
    EXPECT_EQ(k.vgpr_count, e.vgpr);
    EXPECT_EQ(k.agpr_count, e.agpr);
    EXPECT_EQ(k.group_segment_fixed_size, e.lds);
    EXPECT_EQ(k.private_segment_fixed_size, e.scratch);
    EXPECT_EQ(k.kernarg_segment_size, e.kernarg);
    EXPECT_EQ(k.wavefront_size, e.wave);
    EXPECT_EQ(k.max_flat_workgroup_size, e.max_flat);
    EXPECT_EQ(k.sgpr_spill_count, 0u);
    EXPECT_EQ(k.vgpr_spill_count, 0u);
    EXPECT_FALSE(k.uses_dynamic_stack);
    // The descriptor repeats the segment sizes and says wave64 (bit 10 of kernel_code_properties clear).
    ASSERT_TRUE(k.descriptor.has_value());
    EXPECT_EQ(k.descriptor->group_segment_fixed_size, e.lds);
    EXPECT_EQ(k.descriptor->private_segment_fixed_size, e.scratch);
    EXPECT_EQ(k.descriptor->kernarg_size, e.kernarg);
    EXPECT_FALSE(k.descriptor->wave32());
  }
}

TEST(CodeObject, DescriptorGivesAllocationGranules) {
  // Descriptor words read with `llvm-readelf-15 -x .rodata` (rsrc1 at byte 48, rsrc3 at byte 44):
  //   add_one      rsrc1 0x00af0040 (VGPR field 0, SGPR field 1), rsrc3 0 (ACCUM_OFFSET 0)
  //   tile_sum     rsrc1 0x00af0042 (VGPR 2, SGPR 1),             rsrc3 4
  //   uses_agprs   rsrc1 0x00af0000 (VGPR 0, SGPR 0),             rsrc3 0
  //   uses_scratch rsrc1 0x00af0080 (VGPR 0, SGPR 2),             rsrc3 1
  // gfx90a: total = (VGPR+1)*8, arch = (ACCUM_OFFSET+1)*4, accum = total - arch, sgprs = (SGPR/2+1)*16.
  const auto all = read_kernel_resources(kFixture);
  struct Alloc {
    const char* name;
    uint32_t arch, accum, sgprs;
  };
  const Alloc expected[] = {
      {"_Z7add_onePfi", 4, 8 - 4, 16},      // (0+1)*4; (0+1)*8-4; (1/2+1)*16
      {"_Z8tile_sumPKfPf", 20, 24 - 20, 16},  // (4+1)*4; (2+1)*8-20; (1/2+1)*16
      {"_Z10uses_agprsPf", 4, 8 - 4, 16},   // (0+1)*4; (0+1)*8-4; (0/2+1)*16
      {"_Z12uses_scratchPfi", 8, 0, 32},    // (1+1)*4; (0+1)*8-8; (2/2+1)*16
  };
  for (const auto& e : expected) {
    const auto& r = by_name(all, e.name, "gfx90a");
    SCOPED_TRACE(e.name);
    EXPECT_EQ(r.alloc_arch_vgprs, e.arch);
    EXPECT_EQ(r.alloc_accum_vgprs, e.accum);
    EXPECT_EQ(r.alloc_sgprs, e.sgprs);
  }
}

TEST(KernelResources, CommonResultForTheGfx90aObject) {
  const auto all = read_kernel_resources(kFixture);
  ASSERT_EQ(all.size(), 4u);
  const auto& agprs = by_name(all, "_Z10uses_agprsPf", "gfx90a");
  EXPECT_EQ(agprs.vendor, collectors::GpuVendor::Amd);
  EXPECT_EQ(agprs.name, "uses_agprs(float*)");
  EXPECT_EQ(agprs.symbol, "_Z10uses_agprsPf.kd");
  EXPECT_EQ(agprs.target, "amdgcn-amd-amdhsa--gfx90a");
  EXPECT_EQ(agprs.container, "");
  // .vgpr_count 5 is the unified total alignTo(arch, 4) + agpr = 4 + 1, so arch = 5 - 1 = 4.
  EXPECT_EQ(agprs.arch_vgprs, 4u);
  EXPECT_EQ(agprs.accum_vgprs, 1u);
  EXPECT_EQ(agprs.max_threads_per_block, 256u);
  const auto& tile = by_name(all, "_Z8tile_sumPKfPf", "gfx90a");
  EXPECT_EQ(tile.name, "tile_sum(float const*, float*)");
  EXPECT_EQ(tile.lds_bytes, 1024u);  // __shared__ float tile[256]: 256 * 4
  EXPECT_EQ(tile.arch_vgprs, 18u);   // no AGPRs: the whole .vgpr_count is arch
  EXPECT_EQ(tile.accum_vgprs, 0u);
  const auto& scratch = by_name(all, "_Z12uses_scratchPfi", "gfx90a");
  EXPECT_EQ(scratch.scratch_bytes, 272u);
  EXPECT_EQ(scratch.sgprs, 18u);
  EXPECT_EQ(scratch.wave_size, 64u);
  EXPECT_EQ(scratch.kernarg_bytes, 12u);  // float* + int
  EXPECT_EQ(scratch.code_object_version, 4);
}

TEST(CodeObject, TargetNamesAndGfxMajor) {
  using namespace collectors::amd;
  EXPECT_EQ(processor_of_target("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(processor_of_target("amdgcn-amd-amdhsa--gfx1030"), "gfx1030");
  EXPECT_EQ(processor_of_target(""), "");
  EXPECT_EQ(gfx_major("gfx90a"), 9);
  EXPECT_EQ(gfx_major("gfx942"), 9);
  EXPECT_EQ(gfx_major("gfx1030"), 10);
  EXPECT_EQ(gfx_major("gfx1100"), 11);
  EXPECT_EQ(gfx_major("sm_90"), 0);
  EXPECT_TRUE(has_unified_vgpr_file("gfx950"));
  EXPECT_FALSE(has_unified_vgpr_file("gfx908"));
  EXPECT_FALSE(has_unified_vgpr_file("gfx1030"));
}

TEST(CodeObject, Wave32AllocationOnGfx10) {
  // gfx1030 wave32: VGPR granule 8, SGPRs not allocated per wave. Field 2 -> (2+1)*8 = 24 VGPRs.
  collectors::amd::KernelDescriptor kd;
  kd.compute_pgm_rsrc1 = 2 | (3u << 6);
  kd.kernel_code_properties = 1u << 10;
  const auto a = collectors::amd::allocated_registers("gfx1030", kd);
  EXPECT_EQ(a.arch_vgprs, 24u);
  EXPECT_EQ(a.accum_vgprs, 0u);
  EXPECT_EQ(a.sgprs, 0u);
  // Same field in wave64: granule 4 -> 12 VGPRs.
  kd.kernel_code_properties = 0;
  EXPECT_EQ(collectors::amd::allocated_registers("gfx1030", kd).arch_vgprs, 12u);
  // gfx908 has a separate AccVGPR file allocated like the arch one: field 2 -> 12 + 12.
  const auto mi100 = collectors::amd::allocated_registers("gfx908", kd);
  EXPECT_EQ(mi100.arch_vgprs, 12u);
  EXPECT_EQ(mi100.accum_vgprs, 12u);
  EXPECT_EQ(mi100.sgprs, 32u);  // SGPR field 3: (3/2+1)*16
}

// ---- bad inputs ----------------------------------------------------------------------------------------

// Offset of the NT_AMDGPU_METADATA descriptor. The note is namesz (desc - 20), descsz (desc - 16),
// type 32 (desc - 12), the name "AMDGPU\0" padded to 8 bytes (desc - 8), then the descriptor.
std::size_t metadata_offset(const std::vector<std::byte>& co) {
  return test::find_bytes(co, std::string("AMDGPU\0\0", 8)) + 8;
}

TEST(CodeObjectErrors, FilesThatAreNotGpuBinaries) {
  test::TempDir dir;
  expect_error([&] { read_kernel_resources(dir.file("absent.co")); }, ExitCode::InputMissing,
               {dir.file("absent.co")});
  write_binary(dir.file("empty.co"), {});
  expect_error([&] { read_kernel_resources(dir.file("empty.co")); }, ExitCode::InputInvalid, {"empty"});
  write_binary(dir.file("text.co"), test::to_bytes("hello, this is text\n"));
  expect_error([&] { read_kernel_resources(dir.file("text.co")); }, ExitCode::InputInvalid,
               {dir.file("text.co"), "not a GPU binary"});
  expect_error([&] { read_kernel_resources(dir.path().string()); }, ExitCode::InputInvalid,
               {"not a regular file"});
  // This test program is an x86-64 ELF without .hip_fatbin or .nv_fatbin.
  expect_error([&] { read_kernel_resources("/proc/self/exe"); }, ExitCode::InputInvalid, {"without GPU code"});
  expect_error([&] { read_co(test::to_bytes("not elf at all")); }, ExitCode::InputInvalid,
               {"test.co", "not an ELF"});
}

TEST(CodeObjectErrors, WrongMachineAndOsAbi) {
  auto co = read_binary(kFixture);
  auto x86 = co;
  x86[18] = std::byte{62};  // e_machine = EM_X86_64
  x86[19] = std::byte{0};
  expect_error([&] { read_co(x86, "x86.co"); }, ExitCode::InputInvalid, {"x86.co", "machine 62", "AMDGPU"});
  auto pal = co;
  pal[7] = std::byte{65};  // EI_OSABI = ELFOSABI_AMDGPU_PAL
  expect_error([&] { read_co(pal); }, ExitCode::InputInvalid, {"OS ABI 65"});
}

TEST(CodeObjectErrors, DamagedElf) {
  auto co = read_binary(kFixture);
  co.resize(300);  // header intact, sections and notes cut off
  test::TempDir dir;
  write_binary(dir.file("cut.co"), co);
  expect_error([&] { read_kernel_resources(dir.file("cut.co")); }, ExitCode::InputCorrupt, {"cut.co"});
  co.resize(40);  // not even a whole ELF header
  write_binary(dir.file("header.co"), co);
  expect_error([&] { read_kernel_resources(dir.file("header.co")); }, ExitCode::InputCorrupt, {"header.co"});
}

TEST(CodeObjectErrors, MissingNote) {
  auto co = read_binary(kFixture);
  const std::size_t desc = metadata_offset(co);
  co[desc - 12] = std::byte{33};  // note type 32 -> 33
  expect_error([&] { read_co(co, "nonote.co"); }, ExitCode::InputInvalid, {"nonote.co", "NT_AMDGPU_METADATA"});
}

TEST(CodeObjectErrors, MalformedMetadata) {
  const auto original = read_binary(kFixture);
  const std::size_t desc = metadata_offset(original);

  auto invalid_byte = original;
  invalid_byte[desc] = std::byte{0xc1};  // 0xc1 is never used in MessagePack
  expect_error([&] { read_co(invalid_byte, "bad.co"); }, ExitCode::InputCorrupt, {"bad.co", "MessagePack"});

  auto not_map = original;
  not_map[desc] = std::byte{0x90};  // an empty array where the root map was
  expect_error([&] { read_co(not_map); }, ExitCode::InputCorrupt, {"not a MessagePack map"});

  auto truncated = original;
  std::memset(truncated.data() + desc - 16, 0, 4);  // descsz ...
  truncated[desc - 16] = std::byte{10};            // ... = 10 bytes: the MessagePack map is cut short
  expect_error([&] { read_co(truncated); }, ExitCode::InputCorrupt, {"MessagePack"});

  auto no_vgprs = original;
  const std::size_t key = test::find_bytes(no_vgprs, ".vgpr_count");
  no_vgprs[key + 6] = std::byte{'x'};  // ".vgpr_xount": kernel #0 lacks a required key
  expect_error([&] { read_co(no_vgprs); }, ExitCode::InputCorrupt, {"kernel #0", "_Z7add_onePfi", ".vgpr_count"});

  auto wrong_type = original;
  const std::size_t wave = test::find_bytes(wrong_type, ".wavefront_size");
  // The value after the 15-character fixstr key is positive fixint 64 (0x40); make it nil (0xc0).
  ASSERT_EQ(wrong_type[wave + 15], std::byte{0x40});
  wrong_type[wave + 15] = std::byte{0xc0};
  expect_error([&] { read_co(wrong_type); }, ExitCode::InputCorrupt, {".wavefront_size", "unsigned"});
}

// ---- code objects compiled by this machine's hipcc ------------------------------------------------------

#ifdef RPL_HIP_CODE_OBJECTS
const std::string kHipDir = RPL_HIP_CODE_OBJECTS;
#endif

// GTEST_SKIP only leaves the function it is written in, so this is a macro: it must return from the test.
#ifdef RPL_HIP_CODE_OBJECTS
#define REQUIRE_HIPCC() (void)0
#else
#define REQUIRE_HIPCC()                                                                                  \
  GTEST_SKIP() << "hipcc was not found when configuring; install Debian's hipcc (apt-get install hipcc) " \
                  "and reconfigure to test code objects compiled for gfx90a, gfx940 and gfx1030"
#endif

std::string hip_file(const std::string& name) {
#ifdef RPL_HIP_CODE_OBJECTS
  return kHipDir + "/" + name;
#else
  return name;
#endif
}

// llvm-readelf --notes prints the metadata as YAML; per kernel the scalar keys at indentation 4
// ("  - .agpr_count: 0" opens a kernel). An independent reader of the same note.
std::vector<std::map<std::string, std::string>> readelf_kernels(const std::string& path, std::string* target) {
  std::vector<std::map<std::string, std::string>> kernels;
#ifdef RPL_LLVM_READELF
  int status = 0;
  const std::string yaml = test::run_shell(std::string(RPL_LLVM_READELF) + " --notes '" + path + "'", &status);
  EXPECT_EQ(status, 0);
  std::istringstream in(yaml);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("amdhsa.target:")) *target = line.substr(line.find_first_not_of(' ', 14));
    std::string body;
    if (line.starts_with("  - .")) {
      kernels.emplace_back();
      body = line.substr(4);
    } else if (line.starts_with("    .") && !kernels.empty()) {
      body = line.substr(4);
    } else {
      continue;
    }
    const auto colon = body.find(':');
    const auto value = body.find_first_not_of(' ', colon + 1);
    if (value != std::string::npos) kernels.back()[body.substr(0, colon)] = body.substr(value);
  }
#else
  (void)path;
  (void)target;
#endif
  return kernels;
}

class HipccCodeObject : public ::testing::TestWithParam<const char*> {};

TEST_P(HipccCodeObject, MatchesLlvmReadelf) {
  REQUIRE_HIPCC();
#ifndef RPL_LLVM_READELF
  GTEST_SKIP() << "llvm-readelf not found when configuring (Debian: llvm-15, a dependency of hipcc)";
#endif
  const std::string arch = GetParam();
  const std::string path = hip_file("kernels-" + arch + ".co");
  const auto co = read_co(read_binary(path), path);
  std::string target;
  const auto reference = readelf_kernels(path, &target);
  EXPECT_EQ(co.target, target);
  EXPECT_EQ(co.processor, arch);
  ASSERT_EQ(co.kernels.size(), reference.size());
  ASSERT_EQ(co.kernels.size(), 4u);
  for (std::size_t i = 0; i < co.kernels.size(); ++i) {
    const auto& k = co.kernels[i];
    auto ref = reference[i];
    SCOPED_TRACE(k.name);
    auto number = [&](const std::string& key) { return ref.count(key) ? std::stoul(ref[key]) : 0ul; };
    EXPECT_EQ(k.name, ref[".name"]);
    EXPECT_EQ(k.symbol, ref[".symbol"]);
    EXPECT_EQ(k.sgpr_count, number(".sgpr_count"));
    EXPECT_EQ(k.vgpr_count, number(".vgpr_count"));
    EXPECT_EQ(k.agpr_count, number(".agpr_count"));
    EXPECT_EQ(k.group_segment_fixed_size, number(".group_segment_fixed_size"));
    EXPECT_EQ(k.private_segment_fixed_size, number(".private_segment_fixed_size"));
    EXPECT_EQ(k.kernarg_segment_size, number(".kernarg_segment_size"));
    EXPECT_EQ(k.wavefront_size, number(".wavefront_size"));
    EXPECT_EQ(k.max_flat_workgroup_size, number(".max_flat_workgroup_size"));
    EXPECT_EQ(k.sgpr_spill_count, number(".sgpr_spill_count"));
    EXPECT_EQ(k.vgpr_spill_count, number(".vgpr_spill_count"));
  }
}

TEST_P(HipccCodeObject, WaveSizeAgprsLdsAndScratchFollowTheSource) {
  REQUIRE_HIPCC();
  const std::string arch = GetParam();
  const auto all = read_kernel_resources(hip_file("kernels-" + arch + ".co"));
  ASSERT_EQ(all.size(), 4u);
  // HIP compiles gfx10+ for wave32 by default, CDNA for wave64; the descriptor's wave32 bit agrees.
  const uint32_t wave = arch == "gfx1030" ? 32 : 64;
  const auto co = read_co(read_binary(hip_file("kernels-" + arch + ".co")));
  for (const auto& k : co.kernels) {
    EXPECT_EQ(k.wavefront_size, wave) << k.name;
    ASSERT_TRUE(k.descriptor.has_value());
    EXPECT_EQ(k.descriptor->wave32(), wave == 32) << k.name;
  }
  for (const auto& r : all) EXPECT_EQ(r.wave_size, wave) << r.mangled;
  // The inline asm writes one AGPR on gfx90a and gfx940; gfx1030 has none.
  const auto& agprs = by_name(all, "_Z10uses_agprsPf", arch);
  EXPECT_EQ(agprs.accum_vgprs, arch == "gfx1030" ? 0u : 1u);
  EXPECT_EQ(agprs.max_threads_per_block, 256u);  // __launch_bounds__(256)
  EXPECT_EQ(by_name(all, "_Z7add_onePfi", arch).max_threads_per_block, 1024u);  // HIP's default bound
  EXPECT_EQ(by_name(all, "_Z8tile_sumPKfPf", arch).lds_bytes, 1024u);         // 256 floats * 4
  EXPECT_EQ(by_name(all, "_Z7add_onePfi", arch).lds_bytes, 0u);
  EXPECT_GE(by_name(all, "_Z12uses_scratchPfi", arch).scratch_bytes, 256u);  // 64 floats * 4 at least
  EXPECT_EQ(by_name(all, "_Z7add_onePfi", arch).scratch_bytes, 0u);
  // Allocation granules cover the used counts: gfx90a/gfx940 total in granules of 8, gfx1030 wave32
  // encodes in granules of 8 as well.
  for (const auto& r : all) {
    EXPECT_GE(r.alloc_arch_vgprs + r.alloc_accum_vgprs, r.arch_vgprs + r.accum_vgprs) << r.mangled;
    EXPECT_EQ((r.alloc_arch_vgprs + r.alloc_accum_vgprs) % 8, 0u) << r.mangled;
    if (arch == "gfx1030") {
      EXPECT_EQ(r.alloc_sgprs, 0u) << r.mangled;
    } else {
      EXPECT_GE(r.alloc_sgprs, r.sgprs) << r.mangled;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, HipccCodeObject, ::testing::Values("gfx90a", "gfx940", "gfx1030"));

// The bare code objects, keyed by (kernel, arch), to compare with what fat binaries embed.
std::map<std::pair<std::string, std::string>, BinaryKernelResources> bare_objects() {
  std::map<std::pair<std::string, std::string>, BinaryKernelResources> out;
  for (const char* arch : {"gfx90a", "gfx940", "gfx1030"}) {
    for (auto& r : read_kernel_resources(hip_file(std::string("kernels-") + arch + ".co"))) {
      out[{r.mangled, r.arch}] = r;
    }
  }
  return out;
}

void expect_same_resources(const BinaryKernelResources& a, const BinaryKernelResources& b) {
  SCOPED_TRACE(a.mangled + " " + a.arch);
  EXPECT_EQ(a.arch_vgprs, b.arch_vgprs);
  EXPECT_EQ(a.accum_vgprs, b.accum_vgprs);
  EXPECT_EQ(a.sgprs, b.sgprs);
  EXPECT_EQ(a.lds_bytes, b.lds_bytes);
  EXPECT_EQ(a.scratch_bytes, b.scratch_bytes);
  EXPECT_EQ(a.wave_size, b.wave_size);
  EXPECT_EQ(a.max_threads_per_block, b.max_threads_per_block);
}

TEST(HipccFatBinary, HostExecutableEmbedsAllThreeTargets) {
  REQUIRE_HIPCC();
  const auto all = read_kernel_resources(hip_file("kernels-app"));
  ASSERT_EQ(all.size(), 12u);  // 4 kernels x 3 targets
  const auto bare = bare_objects();
  std::map<std::string, int> per_container;
  for (const auto& r : all) {
    ++per_container[r.container];
    EXPECT_EQ(r.container, "hipv4-amdgcn-amd-amdhsa--" + r.arch);
    expect_same_resources(r, bare.at({r.mangled, r.arch}));
  }
  EXPECT_EQ(per_container.size(), 3u);
}

TEST(HipccFatBinary, SharedLibraryAndDeviceOnlyBundle) {
  REQUIRE_HIPCC();
  const auto bare = bare_objects();
  const auto library = read_kernel_resources(hip_file("libkernels.so"));
  ASSERT_EQ(library.size(), 4u);
  for (const auto& r : library) {
    EXPECT_EQ(r.arch, "gfx90a");
    expect_same_resources(r, bare.at({r.mangled, r.arch}));
  }
  // `--cuda-device-only -c` without --no-gpu-bundle-output writes a bundle file (with an empty host entry).
  const auto bundle = read_kernel_resources(hip_file("kernels.hipfb"));
  ASSERT_EQ(bundle.size(), 8u);
  for (const auto& r : bundle) expect_same_resources(r, bare.at({r.mangled, r.arch}));
}

}  // namespace
}  // namespace rpl
