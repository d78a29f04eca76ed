// Per-architecture occupancy limits. Sources, per family:
//  * AMD: LLVM AMDGPUBaseInfo.cpp (IsaInfo: getMaxWavesPerEU, getTotalNumVGPRs, getVGPRAllocGranule,
//    getAddressableNumArchVGPRs, getMaxWorkGroupsPerCU, getOccupancyWithNumSGPRs) as summarised in
//    the project's AMD profiling-stack notes, and AMDGPUUsage for LDS granules.
//  * NVIDIA: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability" (warps,
//    blocks, registers and shared memory per SM, per block, per thread) and the CUDA occupancy
//    calculator (cuda_occupancy.h: 256-register warp allocation unit, 4 register sub-partitions per
//    SM since Volta, 128-byte shared memory unit and 1 KiB reserved per block since Ampere).
#include <algorithm>
#include <cctype>

#include "analysis/occupancy.hpp"

namespace rpl::analysis {
namespace {

constexpr uint32_t KiB = 1024;

// CDNA2/CDNA3 (gfx90a, gfx940-942) and CDNA4 (gfx950): wave64 only, 4 SIMDs per CU.
ArchLimits cdna(std::string name) {
  ArchLimits a;
  a.arch = std::move(name);
  a.nvidia = false;
  a.wave_size = 64;
  a.simds_per_cu = 4;
  a.max_waves_per_simd = 8;  // getMaxWavesPerEU: gfx90a+ -> 8 (gfx908 and older: 10)
  a.max_blocks_per_cu = 16;  // getMaxWorkGroupsPerCU: 16 barriers per CU on gfx9
  // ArchVGPRs and AccVGPRs share one 512-entry file per lane; each kind addresses 256.
  a.register_file = 512;
  a.register_granule = 8;
  a.max_registers_per_thread = 512;
  a.max_arch_vgprs = 256;
  a.max_accum_vgprs = 256;
  // 800 SGPRs per SIMD. LLVM's occupancy table for GFX8/GFX9 (<=80 -> 10, <=88 -> 9, <=100 -> 8,
  // else 7) is exactly floor(800 / sgprs) for every count a wave can hold, which is how occupancy.cpp
  // applies it. The hardware allocates in blocks of 16 (rocpd's sgpr_count is already a multiple of
  // 16); the table works on the count as given, so the granule is informational here.
  a.sgpr_file = 800;
  a.sgpr_granule = 16;
  // 102 addressable + up to 6 extra (VCC, FLAT_SCRATCH, XNACK_MASK) = 108, allocated as 112.
  a.max_sgprs_per_wave = 112;
  a.lds_per_cu = 64 * KiB;
  a.lds_granule = 512;  // 128 dwords (AMDGPUUsage GFX7-GFX11; rocprofv3 lds_block_size = 128 * 4)
  a.max_lds_per_block = 64 * KiB;
  a.max_threads_per_block = 1024;
  return a;
}

ArchLimits gfx950() {
  ArchLimits a = cdna("gfx950");
  // CDNA4 has 160 KiB of LDS per CU, all of it addressable by one workgroup (LLVM: "local memory
  // (163844) exceeds limit (163840)"). Granule: LLVM encodes gfx950's 163840 bytes as
  // granulated_lds_size = 80, i.e. 2048-byte blocks; not confirmed by AMD documentation (the
  // reference marks it unverified), so LDS-limited results on gfx950 are approximate.
  a.lds_per_cu = 160 * KiB;
  a.max_lds_per_block = 160 * KiB;
  a.lds_granule = 2048;
  return a;
}

// RDNA (gfx10.3, gfx11), modelled in CU mode: 2 SIMD32 per CU. In WGP mode (the compiler's default)
// two CUs pool their resources (4 SIMDs, 128 KiB LDS, 32 barriers), which gives the same per-SIMD
// occupancy except for rounding when a workgroup does not divide evenly. SGPRs are not allocated per
// wave on gfx10+ (rocprofiler reports a constant 128), so they never limit.
ArchLimits rdna(std::string name) {
  ArchLimits a;
  a.arch = std::move(name);
  a.nvidia = false;
  a.wave_size = 32;  // wave32 is the default; wave64 is optional
  a.simds_per_cu = 2;
  a.max_waves_per_simd = 16;  // getMaxWavesPerEU: hasGFX10_3Insts -> 16 (gfx10.1: 20)
  a.max_blocks_per_cu = 16;   // getMaxWorkGroupsPerCU in CU mode (32 per WGP in WGP mode)
  a.max_arch_vgprs = 256;
  a.max_accum_vgprs = 0;
  a.max_registers_per_thread = 256;
  a.sgpr_file = 0;
  a.max_sgprs_per_wave = 0;
  a.lds_per_cu = 64 * KiB;
  a.lds_granule = 512;
  a.max_lds_per_block = 64 * KiB;
  a.max_threads_per_block = 1024;
  return a;
}

ArchLimits gfx1030(std::string name) {
  ArchLimits a = rdna(std::move(name));
  // getTotalNumVGPRs / getVGPRAllocGranule on gfx10: wave32 1024 / 16, wave64 512 / 8.
  a.register_file = 1024;
  a.register_granule = 16;
  a.alt_wave_size = 64;
  a.alt_register_file = 512;
  a.alt_register_granule = 8;
  return a;
}

ArchLimits gfx1100(std::string name) {
  ArchLimits a = rdna(std::move(name));
  // gfx1100/gfx1101 have 1.5x the VGPRs (LLVM Feature1_5xVGPRs): getTotalNumVGPRs = 1536 in wave32,
  // 768 in wave64; getVGPRAllocGranule = 24 in wave32, 12 in wave64 (gfx1102/gfx1103 lack the feature).
  a.register_file = 1536;
  a.register_granule = 24;
  a.alt_wave_size = 64;
  a.alt_register_file = 768;
  a.alt_register_granule = 12;
  return a;
}

// NVIDIA Ampere / Ada / Hopper. Checked against the CUDA Programming Guide's table (compute
// capability 8.0 / 8.6 / 8.9 / 9.0): max warps per SM 64 / 48 / 48 / 64; max resident blocks per SM
// 32 / 16 / 24 / 32; 64K 32-bit registers per SM and per block; 255 registers per thread; shared
// memory per SM 164 / 100 / 100 / 228 KiB and per block 163 / 99 / 99 / 227 KiB (the difference is
// the 1 KiB the driver reserves per block); 1024 threads per block. cuda_occupancy.h lists 256 as the
// per-thread register maximum for 7.x/8.x; the Programming Guide's 255 is what ptxas enforces.
ArchLimits nvidia(std::string name, uint32_t max_warps, uint32_t max_blocks, uint32_t smem_per_sm_kib) {
  ArchLimits a;
  a.arch = std::move(name);
  a.nvidia = true;
  a.wave_size = 32;
  a.simds_per_cu = 1;
  a.max_waves_per_simd = max_warps;
  a.max_blocks_per_cu = max_blocks;
  a.register_file = 65536;
  a.register_granule = 256;  // registers per warp are allocated in units of 256
  a.max_registers_per_thread = 255;
  a.max_arch_vgprs = 255;
  a.max_accum_vgprs = 0;
  a.register_partitions = 4;  // 4 x 16384 registers; a warp's registers come from one sub-partition
  a.max_registers_per_block = 65536;
  a.sgpr_file = 0;
  a.max_sgprs_per_wave = 0;
  // Theoretical occupancy assumes the largest shared-memory carveout (the driver's default picks the
  // carveout the launch needs; a smaller preferred carveout can only lower occupancy).
  a.lds_per_cu = smem_per_sm_kib * KiB;
  a.lds_granule = 128;
  a.lds_reserved_per_block = 1 * KiB;
  a.max_lds_per_block = (smem_per_sm_kib - 1) * KiB;  // opt-in maximum; above 48 KiB needs opt-in
  a.max_threads_per_block = 1024;
  return a;
}


}  // namespace

std::string canonical_arch(std::string_view arch) {
  std::string s;
  s.reserve(arch.size());
  for (char c : arch)
    if (!std::isspace(static_cast<unsigned char>(c))) s.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // Target triples: "amdgcn-amd-amdhsa--gfx90a[:features]"; the processor follows the last "--".
  if (auto dash = s.rfind("--"); dash != std::string::npos) s.erase(0, dash + 2);
  // Target features: "gfx942:sramecc+:xnack-".
  if (auto colon = s.find(':'); colon != std::string::npos) s.erase(colon);
  // Architecture-specific NVIDIA targets ("sm_90a") have the limits of their base.
  if (s.starts_with("sm_") && s.size() > 3 && std::isalpha(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::optional<ArchLimits> arch_limits(const std::string& arch) {
  const std::string name = canonical_arch(arch);
  if (name == "gfx90a" || name == "gfx940" || name == "gfx941" || name == "gfx942") return cdna(name);
  if (name == "gfx950") return gfx950();
  // gfx1030-gfx1036 are all gfx10.3 (RDNA2) with the same register file and wave slots.
  if (name.starts_with("gfx103") && name.size() == 7 && name[6] >= '0' && name[6] <= '6') return gfx1030(name);
  if (name == "gfx1100" || name == "gfx1101") return gfx1100(name);
  if (name == "sm_80") return nvidia(name, 64, 32, 164);
  if (name == "sm_86") return nvidia(name, 48, 16, 100);
  if (name == "sm_89") return nvidia(name, 48, 24, 100);
  if (name == "sm_90") return nvidia(name, 64, 32, 228);
  return std::nullopt;
}

}  // namespace rpl::analysis
