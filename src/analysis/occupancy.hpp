#pragma once
// Theoretical occupancy per architecture: how many waves (AMD) or warps (NVIDIA) of a kernel can be
// resident per SIMD / SM, and which resource limits it. Limits: reference section 4.6 (LLVM
// AMDGPUBaseInfo) and NVIDIA's CUDA occupancy calculator data per compute capability.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rpl::analysis {

struct ArchLimits {
  std::string arch;                // "gfx942", "sm_90", ...
  bool nvidia = false;
  uint32_t wave_size = 64;         // 64/32 (AMD), 32 (NVIDIA warps)
  uint32_t simds_per_cu = 4;       // AMD SIMDs per CU; 1 for NVIDIA (the SM is the unit)
  uint32_t max_waves_per_simd = 8; // AMD waves per SIMD; NVIDIA warps per SM
  uint32_t max_blocks_per_cu = 16; // workgroup slots per CU / blocks per SM
  // Registers. AMD: VGPRs per lane per SIMD (unified VGPR+AGPR on CDNA). NVIDIA: registers per SM.
  uint32_t register_file = 512;
  uint32_t register_granule = 8;   // AMD: VGPRs per lane; NVIDIA: registers per warp (256)
  uint32_t max_registers_per_thread = 512;
  // SGPRs (AMD gfx9 only; 0 = not limiting). Waves = floor(sgpr_file / sgprs), LLVM's table; the
  // granule is informational (rocpd's counts are already rounded to it).
  uint32_t sgpr_file = 0;
  uint32_t sgpr_granule = 16;
  // LDS / shared memory, bytes.
  uint32_t lds_per_cu = 65536;
  uint32_t lds_granule = 512;
  uint32_t lds_reserved_per_block = 0;  // NVIDIA reserves 1 KiB per block for the system
  uint32_t max_lds_per_block = 65536;
  uint32_t max_threads_per_block = 1024;

  // Added for per-architecture detail (arch_limits.cpp explains each value and its source).
  // Addressable registers per lane / thread; a kernel above either cannot be built for the target.
  uint32_t max_arch_vgprs = 256;     // AMD arch VGPRs; NVIDIA: equal to max_registers_per_thread
  uint32_t max_accum_vgprs = 0;      // AMD AGPRs (CDNA: 256, sharing register_file); 0 = no AGPRs
  uint32_t max_sgprs_per_wave = 0;   // AMD gfx9 SGPR allocation per wave; 0 = not checked
  // A second wave size the architecture runs (RDNA: wave64 besides wave32), with its register file.
  uint32_t alt_wave_size = 0;
  uint32_t alt_register_file = 0;
  uint32_t alt_register_granule = 0;
  // NVIDIA: registers are split between the SM's sub-partitions (4 since Volta), and one block may
  // hold at most max_registers_per_block. 1 / 0 on AMD.
  uint32_t register_partitions = 1;
  uint32_t max_registers_per_block = 0;
};

// The bare architecture name: "gfx942:sramecc+:xnack-" -> "gfx942", "amdgcn-amd-amdhsa--gfx90a" ->
// "gfx90a", "SM_90a" -> "sm_90". Lower-cased; returns what it cannot parse unchanged (lower-cased).
std::string canonical_arch(std::string_view arch);

// Known: gfx90a, gfx940, gfx941, gfx942, gfx950, gfx1030, gfx1100, sm_80, sm_86, sm_89, sm_90 (and
// aliases such as "gfx942:sramecc+:xnack-"; also gfx1031-gfx1036 (same limits as gfx1030), gfx1101
// (same as gfx1100) and sm_90a). Returns nullopt for an unknown architecture.
std::optional<ArchLimits> arch_limits(const std::string& arch);

struct KernelResources {
  uint32_t threads_per_block = 0;
  uint32_t arch_vgprs = 0;    // AMD arch VGPRs; NVIDIA registers per thread
  uint32_t accum_vgprs = 0;   // AMD AGPRs
  uint32_t sgprs = 0;
  uint32_t lds_bytes = 0;     // per block: static + dynamic
  uint32_t wave_size = 0;     // 0 = the architecture's default
};

struct Occupancy {
  double theoretical = 0;         // resident waves / max waves, 0..1
  uint32_t waves_per_simd = 0;    // AMD: per SIMD; NVIDIA: warps per SM
  uint32_t max_waves_per_simd = 0;
  uint32_t blocks_per_cu = 0;
  std::string limiter;            // "waves", "vgpr", "sgpr", "lds", "workgroup_slots", "registers", "shared_memory", "blocks"
  // Each resource's own limit, in waves per SIMD (warps per SM), for the report.
  uint32_t limit_by_registers = 0;
  uint32_t limit_by_sgprs = 0;
  uint32_t limit_by_lds = 0;
  uint32_t limit_by_slots = 0;
  uint32_t wave_size = 0;
  uint32_t threads_per_block = 0;
  // Added: whole resident waves per CU / warps per SM (blocks_per_cu x waves per block), and the
  // limit set by the wave slots alone. `theoretical` = waves_per_cu / (max_waves_per_simd x SIMDs).
  uint32_t waves_per_cu = 0;
  uint32_t limit_by_waves = 0;
};

// Model (both vendors): blocks are resident whole, so every limit is first a number of blocks per CU
// (SM); the smallest wins. Per-SIMD limits (VGPRs, SGPRs, wave slots) become block limits as
// floor(limit x SIMDs / waves per block), i.e. a block's waves may sit on any SIMD of the CU.
// waves_per_simd is ceil(waves_per_cu / SIMDs): the fullest SIMD when waves spread evenly.
// limit_by_*: the waves per SIMD that resource alone allows (capped at max_waves_per_simd);
// 0 = the resource does not apply on this architecture (SGPRs on RDNA and NVIDIA).
// Limiter names, AMD: "waves", "vgpr", "sgpr", "lds", "workgroup_slots"; NVIDIA: "waves" (warp
// slots), "registers", "shared_memory", "blocks". On a tie the earlier name in that order is reported.
// Throws rpl::Error(InputInvalid) when the launch cannot run at all: an empty or too large block, LDS
// over the per-block maximum, registers over the per-thread (or NVIDIA per-block) maximum, a wave
// size the architecture does not run, or a block whose waves cannot all be resident on one CU (e.g.
// 1024 threads at 129+ VGPRs on CDNA).
Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& kernel);

}  // namespace rpl::analysis
