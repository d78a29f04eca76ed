// Theoretical occupancy per architecture. Every expectation is worked out by hand in the comment
// above it, from the limits in src/analysis/arch_limits.cpp.
#include <gtest/gtest.h>

#include "analysis/occupancy.hpp"
#include "support/errors.hpp"

namespace rpl::analysis {
namespace {

ArchLimits limits(const std::string& arch) {
  auto l = arch_limits(arch);
  if (!l) throw std::runtime_error("no limits for " + arch);
  return *l;
}

KernelResources kernel(uint32_t threads, uint32_t vgprs, uint32_t lds = 0, uint32_t sgprs = 0, uint32_t agprs = 0,
                       uint32_t wave = 0) {
  KernelResources k;
  k.threads_per_block = threads;
  k.arch_vgprs = vgprs;
  k.accum_vgprs = agprs;
  k.sgprs = sgprs;
  k.lds_bytes = lds;
  k.wave_size = wave;
  return k;
}

Occupancy occ(const std::string& arch, const KernelResources& k) { return compute_occupancy(limits(arch), k); }

void expect_rejected(const std::string& arch, const KernelResources& k) {
  try {
    compute_occupancy(limits(arch), k);
    ADD_FAILURE() << "launch accepted on " << arch;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid) << e.what();
    EXPECT_NE(std::string(e.what()).find(limits(arch).arch), std::string::npos) << e.what();
  }
}

// ---- architecture names ----

TEST(ArchLimits, CanonicalNames) {
  EXPECT_EQ(canonical_arch("gfx942:sramecc+:xnack-"), "gfx942");
  EXPECT_EQ(canonical_arch("amdgcn-amd-amdhsa--gfx90a"), "gfx90a");
  EXPECT_EQ(canonical_arch("amdgcn-amd-amdhsa--gfx90a:xnack+"), "gfx90a");
  EXPECT_EQ(canonical_arch(" GFX1100 "), "gfx1100");
  EXPECT_EQ(canonical_arch("sm_90a"), "sm_90");
  EXPECT_EQ(canonical_arch("sm_80"), "sm_80");
  EXPECT_EQ(canonical_arch("gfx90a"), "gfx90a");  // the trailing 'a' of gfx90a is part of the name
}

TEST(ArchLimits, KnownAndUnknown) {
  for (const char* a : {"gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx1030", "gfx1031", "gfx1036",
                        "gfx1100", "gfx1101", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
                        "gfx942:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx90a"})
    EXPECT_TRUE(arch_limits(a).has_value()) << a;
  for (const char* a : {"", "gfx908", "gfx906", "gfx1010", "gfx1037", "gfx1102", "gfx1201", "sm_75", "sm_87",
                        "sm_100", "AMD Instinct MI300X", "cpu"})
    EXPECT_FALSE(arch_limits(a).has_value()) << a;
  EXPECT_EQ(limits("gfx942:sramecc+:xnack-").arch, "gfx942");
  EXPECT_EQ(limits("sm_90a").arch, "sm_90");
}

TEST(ArchLimits, TableValues) {
  const ArchLimits cdna3 = limits("gfx942");
  EXPECT_EQ(cdna3.wave_size, 64u);
  EXPECT_EQ(cdna3.simds_per_cu, 4u);
  EXPECT_EQ(cdna3.max_waves_per_simd, 8u);
  EXPECT_EQ(cdna3.register_file, 512u);
  EXPECT_EQ(cdna3.lds_per_cu, 65536u);
  EXPECT_EQ(limits("gfx950").lds_per_cu, 163840u);
  const ArchLimits rdna2 = limits("gfx1030");
  EXPECT_EQ(rdna2.wave_size, 32u);
  EXPECT_EQ(rdna2.simds_per_cu, 2u);
  EXPECT_EQ(rdna2.max_waves_per_simd, 16u);
  EXPECT_EQ(rdna2.register_file, 1024u);
  EXPECT_EQ(limits("gfx1100").register_file, 1536u);
  EXPECT_EQ(limits("gfx1100").register_granule, 24u);
  struct Nv {
    const char* arch;
    uint32_t warps, blocks, smem_kib;
  };
  for (const Nv& nv : {Nv{"sm_80", 64, 32, 164}, Nv{"sm_86", 48, 16, 100}, Nv{"sm_89", 48, 24, 100},
                       Nv{"sm_90", 64, 32, 228}}) {
    const ArchLimits l = limits(nv.arch);
    EXPECT_TRUE(l.nvidia);
    EXPECT_EQ(l.max_waves_per_simd, nv.warps) << nv.arch;
    EXPECT_EQ(l.max_blocks_per_cu, nv.blocks) << nv.arch;
    EXPECT_EQ(l.lds_per_cu, nv.smem_kib * 1024) << nv.arch;
    EXPECT_EQ(l.max_lds_per_block, (nv.smem_kib - 1) * 1024) << nv.arch;
    EXPECT_EQ(l.register_file, 65536u);
    EXPECT_EQ(l.max_registers_per_thread, 255u);
  }
}

// ---- CDNA (gfx90a, gfx940-942): wave64, 4 SIMDs, 8 waves/SIMD, 512 unified VGPRs granule 8 ----

TEST(OccupancyCdna, FullOccupancyNamesWaves) {
  // 256 threads = 4 waves. VGPR 32: 512/32 = 16 -> 8. SGPR 32: 800/32 = 25 -> 8. No LDS.
  // Blocks: waves 32/4 = 8, vgpr 8*4/4 = 8, slots min(32/4, 16) = 8: all tie at 8 -> "waves".
  const Occupancy o = occ("gfx90a", kernel(256, 32, 0, 32));
  EXPECT_EQ(o.limiter, "waves");
  EXPECT_EQ(o.blocks_per_cu, 8u);
  EXPECT_EQ(o.waves_per_cu, 32u);
  EXPECT_EQ(o.waves_per_simd, 8u);
  EXPECT_EQ(o.max_waves_per_simd, 8u);
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
  EXPECT_EQ(o.limit_by_waves, 8u);
  EXPECT_EQ(o.limit_by_registers, 8u);
  EXPECT_EQ(o.limit_by_sgprs, 8u);
  EXPECT_EQ(o.limit_by_lds, 8u);
  EXPECT_EQ(o.limit_by_slots, 8u);
  EXPECT_EQ(o.wave_size, 64u);
  EXPECT_EQ(o.threads_per_block, 256u);
}

TEST(OccupancyCdna, VgprBoundary64vs65) {
  // 64 VGPRs: 512/64 = 8 waves -> not limiting.
  const Occupancy at64 = occ("gfx90a", kernel(256, 64));
  EXPECT_EQ(at64.limiter, "waves");
  EXPECT_DOUBLE_EQ(at64.theoretical, 1.0);
  // 65 VGPRs: alignTo(65, 8) = 72; 512/72 = 7 waves/SIMD -> 7*4/4 = 7 blocks -> 28 waves -> 7/8.
  const Occupancy at65 = occ("gfx90a", kernel(256, 65));
  EXPECT_EQ(at65.limiter, "vgpr");
  EXPECT_EQ(at65.waves_per_simd, 7u);
  EXPECT_EQ(at65.limit_by_registers, 7u);
  EXPECT_EQ(at65.limit_by_waves, 8u);
  EXPECT_DOUBLE_EQ(at65.theoretical, 0.875);
  // 72 allocates the same as 65; 73 -> 80 -> 512/80 = 6.
  EXPECT_EQ(occ("gfx90a", kernel(256, 72)).waves_per_simd, 7u);
  EXPECT_EQ(occ("gfx90a", kernel(256, 73)).waves_per_simd, 6u);
}

TEST(OccupancyCdna, AgprsShareTheFileAfterAlignTo4) {
  // arch 57 + AGPR 71: alignTo(57, 4) = 60, + 71 = 131 -> alignTo 8 = 136; 512/136 = 3 waves.
  // (A plain sum, 128, would wrongly give 4.) 256-thread blocks: 3*4/4 = 3 blocks = 12 waves.
  const Occupancy o = occ("gfx942", kernel(256, 57, 0, 0, 71));
  EXPECT_EQ(o.limiter, "vgpr");
  EXPECT_EQ(o.waves_per_simd, 3u);
  EXPECT_DOUBLE_EQ(o.theoretical, 3.0 / 8.0);
  // Without AGPRs no alignment to 4: arch 125 -> 128 -> 4 waves.
  EXPECT_EQ(occ("gfx942", kernel(256, 125)).waves_per_simd, 4u);
  // AGPRs only: total = 64 -> 8 waves.
  EXPECT_EQ(occ("gfx942", kernel(256, 0, 0, 0, 64)).waves_per_simd, 8u);
  // Both at their maximum: 256 + 256 = 512 -> 1 wave/SIMD; 256 threads: 1*4/4 = 1 block = 4 waves.
  const Occupancy full = occ("gfx90a", kernel(256, 256, 0, 0, 256));
  EXPECT_EQ(full.waves_per_simd, 1u);
  EXPECT_DOUBLE_EQ(full.theoretical, 4.0 / 32.0);
}

TEST(OccupancyCdna, RegisterMaximaRejected) {
  expect_rejected("gfx90a", kernel(256, 257));
  expect_rejected("gfx90a", kernel(256, 64, 0, 0, 257));
  expect_rejected("gfx942", kernel(64, 32, 0, 113));  // 112 SGPRs is the most a wave can be given
  EXPECT_NO_THROW(occ("gfx942", kernel(64, 32, 0, 112)));
}

TEST(OccupancyCdna, SgprRule) {
  // 64-thread blocks (1 wave): blocks = waves/SIMD * 4. floor(800/s): 96 -> 8, 100 -> 8, 101 -> 7.
  EXPECT_EQ(occ("gfx90a", kernel(64, 16, 0, 96)).limiter, "waves");
  EXPECT_EQ(occ("gfx90a", kernel(64, 16, 0, 100)).limiter, "waves");
  const Occupancy o = occ("gfx90a", kernel(64, 16, 0, 101));
  EXPECT_EQ(o.limiter, "sgpr");
  EXPECT_EQ(o.limit_by_sgprs, 7u);
  EXPECT_EQ(o.blocks_per_cu, 28u);  // 7 waves x 4 SIMDs / 1 wave per block
  EXPECT_DOUBLE_EQ(o.theoretical, 28.0 / 32.0);
  // 112 (rocpd's rounded count for 101-112 used) -> 800/112 = 7.
  EXPECT_EQ(occ("gfx90a", kernel(64, 16, 0, 112)).waves_per_simd, 7u);
  // Unknown (0) SGPRs never limit.
  EXPECT_EQ(occ("gfx90a", kernel(64, 16, 0, 0)).limit_by_sgprs, 8u);
}

TEST(OccupancyCdna, LdsBoundaries) {
  // 256 threads (4 waves). Exactly 32 KiB: 65536/32768 = 2 blocks -> 8 waves -> 2/SIMD.
  const Occupancy at32k = occ("gfx90a", kernel(256, 32, 32768));
  EXPECT_EQ(at32k.limiter, "lds");
  EXPECT_EQ(at32k.blocks_per_cu, 2u);
  EXPECT_EQ(at32k.waves_per_simd, 2u);
  EXPECT_EQ(at32k.limit_by_lds, 2u);
  EXPECT_DOUBLE_EQ(at32k.theoretical, 0.25);
  // One byte more: alignTo(32769, 512) = 33280 -> 65536/33280 = 1 block -> 4 waves -> 1/SIMD.
  const Occupancy over = occ("gfx90a", kernel(256, 32, 32769));
  EXPECT_EQ(over.blocks_per_cu, 1u);
  EXPECT_DOUBLE_EQ(over.theoretical, 0.125);
  // Granule: 8192 B -> 8 blocks (ties the wave limit); 8193 -> 8704 B -> 7 blocks -> 28 waves.
  EXPECT_EQ(occ("gfx942", kernel(256, 32, 8192)).limiter, "waves");
  const Occupancy granule = occ("gfx942", kernel(256, 32, 8193));
  EXPECT_EQ(granule.limiter, "lds");
  EXPECT_EQ(granule.blocks_per_cu, 7u);
  EXPECT_DOUBLE_EQ(granule.theoretical, 28.0 / 32.0);
  // The whole 64 KiB fits one block; one byte more cannot launch.
  EXPECT_EQ(occ("gfx90a", kernel(256, 32, 65536)).blocks_per_cu, 1u);
  expect_rejected("gfx90a", kernel(256, 32, 65537));
}

TEST(OccupancyCdna, WorkgroupSlots) {
  // Single-wave workgroups are not barrier-limited: 32 blocks of 1 wave = 8/SIMD, not 16 blocks.
  const Occupancy single = occ("gfx90a", kernel(64, 32));
  EXPECT_EQ(single.blocks_per_cu, 32u);
  EXPECT_DOUBLE_EQ(single.theoretical, 1.0);
  EXPECT_EQ(single.limit_by_slots, 8u);
  // 2-wave groups: slots = min(32/2, 16) = 16 -> 16*2/4 = 8 waves/SIMD.
  EXPECT_EQ(occ("gfx90a", kernel(128, 32)).limit_by_slots, 8u);
  // 3-wave groups (192 threads): min(32/3, 16) = 10 blocks = 30 waves; the fullest SIMD holds
  // ceil(30/4) = 8, the exact ratio is 30/32.
  const Occupancy three = occ("gfx90a", kernel(192, 32));
  EXPECT_EQ(three.blocks_per_cu, 10u);
  EXPECT_EQ(three.waves_per_cu, 30u);
  EXPECT_EQ(three.waves_per_simd, 8u);
  EXPECT_DOUBLE_EQ(three.theoretical, 30.0 / 32.0);
}

TEST(OccupancyCdna, WholeBlocksOnly) {
  // 512 threads = 8 waves, 65 VGPRs -> 7 waves/SIMD = 28 per CU, but only 28/8 = 3 whole blocks fit:
  // 24 waves = 6/SIMD (a per-SIMD formula would claim 7).
  const Occupancy o = occ("gfx90a", kernel(512, 65));
  EXPECT_EQ(o.limiter, "vgpr");
  EXPECT_EQ(o.blocks_per_cu, 3u);
  EXPECT_EQ(o.waves_per_simd, 6u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.75);
  // 1024 threads = 16 waves: 128 VGPRs -> 4/SIMD = 16 per CU = exactly one block.
  EXPECT_EQ(occ("gfx90a", kernel(1024, 128)).blocks_per_cu, 1u);
  // 129 VGPRs -> 136 -> 3/SIMD = 12 per CU < 16: the block cannot be resident at all.
  expect_rejected("gfx90a", kernel(1024, 129));
}

TEST(OccupancyCdna, BadLaunches) {
  expect_rejected("gfx90a", kernel(1025, 32));
  expect_rejected("gfx90a", kernel(0, 32));
  expect_rejected("gfx90a", kernel(64, 32, 0, 0, 0, 32));  // gfx9 runs wave64 only
  EXPECT_NO_THROW(occ("gfx90a", kernel(1024, 32)));
  EXPECT_NO_THROW(occ("gfx90a", kernel(64, 32, 0, 0, 0, 64)));
}

TEST(OccupancyCdna, Gfx940And941MatchGfx942) {
  for (const char* a : {"gfx940", "gfx941", "gfx942", "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"}) {
    const Occupancy o = occ(a, kernel(256, 65));
    EXPECT_EQ(o.waves_per_simd, 7u) << a;
    EXPECT_EQ(o.limiter, "vgpr") << a;
  }
}

// ---- gfx950 (CDNA4): 160 KiB LDS per CU and per workgroup ----

TEST(OccupancyGfx950, LargerLds) {
  // 64 KiB with 256 threads: gfx942 fits 1 block, gfx950 163840/65536 = 2 blocks -> 8 waves -> 2/SIMD.
  EXPECT_EQ(occ("gfx942", kernel(256, 32, 65536)).blocks_per_cu, 1u);
  const Occupancy o = occ("gfx950", kernel(256, 32, 65536));
  EXPECT_EQ(o.limiter, "lds");
  EXPECT_EQ(o.blocks_per_cu, 2u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.25);
  EXPECT_EQ(occ("gfx950", kernel(256, 32, 163840)).blocks_per_cu, 1u);
  expect_rejected("gfx950", kernel(256, 32, 163841));
  // 2048-byte granule: 16385 B -> 18432 -> 163840/18432 = 8 single-wave blocks = 8 waves -> ceil(8/4) = 2.
  const Occupancy g = occ("gfx950", kernel(64, 32, 16385));
  EXPECT_EQ(g.blocks_per_cu, 8u);
  EXPECT_EQ(g.waves_per_simd, 2u);
  // VGPRs as on gfx942.
  EXPECT_EQ(occ("gfx950", kernel(256, 65)).waves_per_simd, 7u);
}

// ---- RDNA2 (gfx1030): wave32 default, 2 SIMDs per CU, 16 waves/SIMD, 1024 VGPRs granule 16 ----

TEST(OccupancyRdna2, Wave32) {
  // 256 threads = 8 wave32s. 64 VGPRs: 1024/64 = 16 -> blocks: waves 32/8 = 4, vgpr 16*2/8 = 4,
  // slots min(32/8, 16) = 4 -> 4 blocks = 32 waves = 16/SIMD.
  const Occupancy full = occ("gfx1030", kernel(256, 64));
  EXPECT_EQ(full.limiter, "waves");
  EXPECT_EQ(full.wave_size, 32u);
  EXPECT_EQ(full.waves_per_simd, 16u);
  EXPECT_DOUBLE_EQ(full.theoretical, 1.0);
  // 65 VGPRs: alignTo(65, 16) = 80; 1024/80 = 12 -> 12*2/8 = 3 blocks = 24 waves = 12/SIMD.
  const Occupancy o = occ("gfx1030", kernel(256, 65));
  EXPECT_EQ(o.limiter, "vgpr");
  EXPECT_EQ(o.waves_per_simd, 12u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.75);
  // SGPRs never limit on gfx10+ (rocprofiler reports a constant 128).
  EXPECT_EQ(occ("gfx1030", kernel(256, 64, 0, 128)).limit_by_sgprs, 0u);
  EXPECT_EQ(occ("gfx1030", kernel(256, 64, 0, 128)).limiter, "waves");
}

TEST(OccupancyRdna2, Wave64) {
  // 256 threads = 4 wave64s. 64 VGPRs: 512/64 = 8 waves/SIMD -> 8*2/4 = 4 blocks = 16 waves = 8/SIMD.
  const Occupancy o = occ("gfx1030", kernel(256, 64, 0, 0, 0, 64));
  EXPECT_EQ(o.wave_size, 64u);
  EXPECT_EQ(o.limiter, "vgpr");
  EXPECT_EQ(o.waves_per_simd, 8u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  // 65 VGPRs: alignTo(65, 8) = 72; 512/72 = 7 -> 7*2/4 = 3 blocks = 12 waves = 6/SIMD.
  EXPECT_EQ(occ("gfx1030", kernel(256, 65, 0, 0, 0, 64)).waves_per_simd, 6u);
  // 32 VGPRs in wave64: 512/32 = 16 -> not limiting, 32/4 = 8 blocks = 16/SIMD.
  EXPECT_DOUBLE_EQ(occ("gfx1030", kernel(256, 32, 0, 0, 0, 64)).theoretical, 1.0);
}

TEST(OccupancyRdna2, LdsAndBadLaunches) {
  // 32 KiB: 2 blocks of 8 wave32s = 16 waves = 8/SIMD.
  const Occupancy o = occ("gfx1031", kernel(256, 32, 32768));
  EXPECT_EQ(o.limiter, "lds");
  EXPECT_EQ(o.waves_per_simd, 8u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  expect_rejected("gfx1030", kernel(256, 32, 65537));
  expect_rejected("gfx1030", kernel(256, 32, 0, 0, 4));        // no AGPRs on RDNA
  expect_rejected("gfx1030", kernel(256, 32, 0, 0, 0, 16));    // no wave16
  expect_rejected("gfx1030", kernel(256, 257));                // 256 VGPRs addressable
  // 1024 threads in wave32 = 32 waves = the whole CU; 256 VGPRs -> 1024/256 = 4/SIMD = 8 < 32.
  expect_rejected("gfx1030", kernel(1024, 256));
  EXPECT_EQ(occ("gfx1030", kernel(1024, 64)).blocks_per_cu, 1u);
}

// ---- RDNA3 (gfx1100): 1536 VGPRs granule 24 (wave32), 768 / 12 (wave64) ----

TEST(OccupancyRdna3, Wave32) {
  // 96 VGPRs: 1536/96 = 16 -> not limiting.
  EXPECT_EQ(occ("gfx1100", kernel(64, 96)).limiter, "waves");
  // 97 VGPRs: alignTo(97, 24) = 120; 1536/120 = 12. 64 threads = 2 waves: 12*2/2 = 12 blocks
  // = 24 waves = 12/SIMD = 0.75.
  const Occupancy o = occ("gfx1100", kernel(64, 97));
  EXPECT_EQ(o.limiter, "vgpr");
  EXPECT_EQ(o.blocks_per_cu, 12u);
  EXPECT_EQ(o.waves_per_simd, 12u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.75);
  // 128 VGPRs: gfx1100 alignTo(128, 24) = 144 -> 10; gfx1030 1024/128 = 8.
  EXPECT_EQ(occ("gfx1100", kernel(64, 128)).waves_per_simd, 10u);
  EXPECT_EQ(occ("gfx1030", kernel(64, 128)).waves_per_simd, 8u);
}

TEST(OccupancyRdna3, Wave64) {
  // 128 threads = 2 wave64s. 128 VGPRs: alignTo(128, 12) = 132; 768/132 = 5 -> 5 blocks = 10 waves
  // = 5/SIMD = 5/16.
  const Occupancy o = occ("gfx1100", kernel(128, 128, 0, 0, 0, 64));
  EXPECT_EQ(o.limiter, "vgpr");
  EXPECT_EQ(o.waves_per_simd, 5u);
  EXPECT_DOUBLE_EQ(o.theoretical, 5.0 / 16.0);
  EXPECT_EQ(occ("gfx1101", kernel(128, 128, 0, 0, 0, 64)).waves_per_simd, 5u);
}

// ---- NVIDIA ----

TEST(OccupancyNvidia, Sm80Registers) {
  // 256 threads = 8 warps, 32 regs: 32*32 = 1024 per warp; 16384/1024 = 16 warps per sub-partition
  // -> 64 per SM -> 8 blocks; warps 64/8 = 8; shared 1 KiB reserved -> 164 blocks; blocks 32. -> 8.
  const Occupancy full = occ("sm_80", kernel(256, 32));
  EXPECT_EQ(full.limiter, "waves");
  EXPECT_EQ(full.blocks_per_cu, 8u);
  EXPECT_EQ(full.waves_per_simd, 64u);
  EXPECT_DOUBLE_EQ(full.theoretical, 1.0);
  EXPECT_EQ(full.limit_by_sgprs, 0u);
  // 64 regs: 2048 per warp -> 8 per sub-partition -> 32 warps -> 4 blocks -> 0.5.
  const Occupancy o = occ("sm_80", kernel(256, 64));
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(o.blocks_per_cu, 4u);
  EXPECT_EQ(o.limit_by_registers, 32u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  // Granule: 33 regs -> 1056 -> 1280 per warp -> 12 per sub-partition -> 48 -> 6 blocks -> 0.75.
  EXPECT_DOUBLE_EQ(occ("sm_80", kernel(256, 33)).theoretical, 0.75);
  // Sub-partitions: 64 threads (2 warps), 40 regs -> 1280 per warp: 12 per sub-partition = 48 warps
  // -> 24 blocks = 48 warps (an undivided 65536/1280 = 51 would give 25 blocks = 50 warps).
  const Occupancy part = occ("sm_80", kernel(64, 40));
  EXPECT_EQ(part.limiter, "registers");
  EXPECT_EQ(part.blocks_per_cu, 24u);
  EXPECT_DOUBLE_EQ(part.theoretical, 0.75);
}

TEST(OccupancyNvidia, Sm80RegisterMaxima) {
  // 1024 threads at 64 regs: 2048 x 32 warps = 65536 = the per-block maximum -> 1 block, 32 warps.
  EXPECT_EQ(occ("sm_80", kernel(1024, 64)).waves_per_cu, 32u);
  // 65 regs: 2080 -> 2304 x 32 = 73728 > 65536.
  expect_rejected("sm_80", kernel(1024, 65));
  // 255 regs, 256 threads: 8160 -> 8192 x 8 = 65536 -> 2 per sub-partition -> 8 warps -> 1 block.
  EXPECT_DOUBLE_EQ(occ("sm_80", kernel(256, 255)).theoretical, 8.0 / 64.0);
  expect_rejected("sm_80", kernel(256, 256));
  // The hardware check rounds warps up to the 4 sub-partitions: 288 threads = 9 warps at 224 regs:
  // 7168 x 9 = 64512 fits, but 7168 x 12 = 86016 does not.
  expect_rejected("sm_80", kernel(288, 224));
  EXPECT_NO_THROW(occ("sm_80", kernel(256, 224)));
  expect_rejected("sm_80", kernel(1025, 16));
  expect_rejected("sm_80", kernel(256, 16, 0, 0, 0, 64));  // warps are 32 wide
  expect_rejected("sm_80", kernel(256, 16, 0, 0, 8));      // no AGPRs
}

TEST(OccupancyNvidia, Sm80SharedMemory) {
  // 48 KiB + 1 KiB reserved = 50176 B (a multiple of 128); 167936/50176 = 3 blocks -> 24 warps.
  const Occupancy o = occ("sm_80", kernel(256, 32, 49152));
  EXPECT_EQ(o.limiter, "shared_memory");
  EXPECT_EQ(o.blocks_per_cu, 3u);
  EXPECT_EQ(o.limit_by_lds, 24u);
  EXPECT_DOUBLE_EQ(o.theoretical, 24.0 / 64.0);
  // The reservation counts: 41 KiB -> 43008 B -> 3 blocks (41984 B alone would allow 4).
  EXPECT_EQ(occ("sm_80", kernel(256, 32, 41984)).blocks_per_cu, 3u);
  // 128-byte unit: 163 KiB + 1 KiB = 167936 -> 1 block; one byte more exceeds the per-block maximum.
  EXPECT_EQ(occ("sm_80", kernel(256, 32, 166912)).blocks_per_cu, 1u);
  expect_rejected("sm_80", kernel(256, 32, 166913));
}

TEST(OccupancyNvidia, Sm80Blocks) {
  // 32 threads = 1 warp: warps would allow 64 blocks, the SM holds 32 -> 32 warps -> 0.5.
  const Occupancy o = occ("sm_80", kernel(32, 16));
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_EQ(o.blocks_per_cu, 32u);
  EXPECT_EQ(o.limit_by_slots, 32u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  // 48 threads round up to 2 warps: 32 blocks x 2 = 64 warps.
  EXPECT_DOUBLE_EQ(occ("sm_80", kernel(48, 16)).theoretical, 1.0);
}

TEST(OccupancyNvidia, Sm86) {
  // 48 warps, 16 blocks. 64 threads (2 warps): 16 blocks = 32 warps -> 32/48.
  const Occupancy o = occ("sm_86", kernel(64, 16));
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_NEAR(o.theoretical, 32.0 / 48.0, 1e-12);
  // 256 threads: 48/8 = 6 blocks = 48 warps.
  EXPECT_DOUBLE_EQ(occ("sm_86", kernel(256, 16)).theoretical, 1.0);
  // 99 KiB + 1 KiB = 100 KiB -> 1 block; over 99 KiB rejected. 32 KiB: 33792 -> 102400/33792 = 3.
  EXPECT_EQ(occ("sm_86", kernel(256, 16, 101376)).blocks_per_cu, 1u);
  expect_rejected("sm_86", kernel(256, 16, 101377));
  EXPECT_EQ(occ("sm_86", kernel(256, 16, 32768)).blocks_per_cu, 3u);
}

TEST(OccupancyNvidia, Sm89) {
  // 48 warps, 24 blocks. 64 threads: warps 48/2 = 24 = blocks 24 -> tie -> "waves", 1.0.
  const Occupancy tie = occ("sm_89", kernel(64, 16));
  EXPECT_EQ(tie.limiter, "waves");
  EXPECT_DOUBLE_EQ(tie.theoretical, 1.0);
  // 32 threads: 24 blocks of 1 warp -> 24/48.
  const Occupancy o = occ("sm_89", kernel(32, 16));
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
}

TEST(OccupancyNvidia, Sm90) {
  // 228 KiB per SM: 100 KiB + 1 KiB = 103424 -> 233472/103424 = 2 blocks -> 16 of 64 warps.
  const Occupancy o = occ("sm_90", kernel(256, 32, 102400));
  EXPECT_EQ(o.limiter, "shared_memory");
  EXPECT_EQ(o.blocks_per_cu, 2u);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.25);
  EXPECT_EQ(occ("sm_90a", kernel(256, 32, 232448)).blocks_per_cu, 1u);  // 227 KiB
  expect_rejected("sm_90", kernel(256, 32, 232449));
  // 64 warps, 32 blocks as sm_80: 64 threads -> 32 blocks = 64 warps.
  EXPECT_DOUBLE_EQ(occ("sm_90", kernel(64, 32)).theoretical, 1.0);
}

}  // namespace
}  // namespace rpl::analysis
