#pragma once
// Theoretical occupancy per architecture: how many waves (AMD) or warps (NVIDIA) of a kernel can be
// resident per SIMD / SM, and which resource limits it. Limits: reference section 4.6 (LLVM
// AMDGPUBaseInfo) and NVIDIA's CUDA occupancy calculator data per compute capability.
#include <optional>
#include <string>

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
  // SGPRs (AMD only; 0 = not limiting).
  uint32_t sgpr_file = 0;
  uint32_t sgpr_granule = 16;
  // LDS / shared memory, bytes.
  uint32_t lds_per_cu = 65536;
  uint32_t lds_granule = 512;
  uint32_t lds_reserved_per_block = 0;  // NVIDIA reserves 1 KiB per block for the system
  uint32_t max_lds_per_block = 65536;
  uint32_t max_threads_per_block = 1024;
};

// Known: gfx90a, gfx940, gfx941, gfx942, gfx950, gfx1030, gfx1100, sm_80, sm_86, sm_89, sm_90 (and
// aliases such as "gfx942:sramecc+:xnack-"). Returns nullopt for an unknown architecture.
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
};

// Throws rpl::Error(InputInvalid) when the launch cannot run at all (block too large, LDS too large).
Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& kernel);

}  // namespace rpl::analysis
