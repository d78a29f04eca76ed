// Theoretical occupancy: the number of whole blocks (workgroups) of one kernel a CU / SM can hold,
// limited by wave slots, registers, SGPRs, LDS / shared memory and block slots. The formulas follow
// LLVM's AMDGPU IsaInfo (reference section 4.6) and NVIDIA's cuda_occupancy.h; the constants live in
// arch_limits.cpp.
#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "analysis/occupancy.hpp"
#include "support/errors.hpp"

namespace rpl::analysis {
namespace {

constexpr uint64_t kUnlimited = std::numeric_limits<uint32_t>::max();

uint64_t align_up(uint64_t value, uint64_t granule) {
  return granule == 0 ? value : (value + granule - 1) / granule * granule;
}
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

[[noreturn]] void reject(const ArchLimits& arch, const std::string& what) {
  throw Error(ExitCode::InputInvalid, fmt::format("kernel launch cannot run on {}: {}", arch.arch, what));
}

// Blocks per CU allowed by a per-SIMD wave limit, when a block's waves may use any SIMD of the CU.
uint64_t blocks_from_waves_per_simd(uint64_t waves_per_simd, const ArchLimits& arch, uint64_t waves_per_block) {
  return waves_per_simd * arch.simds_per_cu / waves_per_block;
}

// AMD: waves per SIMD that the VGPR file allows (LLVM getNumWavesPerEUWithNumVGPRs).
uint64_t amd_waves_by_vgprs(const ArchLimits& arch, const KernelResources& k, uint64_t file, uint64_t granule) {
  // Unified file (gfx90a+): AGPRs start at the arch VGPR count aligned to 4 (getTotalNumVGPRs).
  const uint64_t total = k.accum_vgprs > 0 ? align_up(k.arch_vgprs, 4) + k.accum_vgprs : k.arch_vgprs;
  const uint64_t allocated = align_up(std::max<uint64_t>(total, 1), granule);
  if (allocated > file)
    reject(arch, fmt::format("{} VGPRs per lane (arch {} + AGPR {}) exceed the {}-entry register file", allocated,
                             k.arch_vgprs, k.accum_vgprs, file));
  return std::min<uint64_t>(arch.max_waves_per_simd, file / allocated);
}

// AMD gfx9: LLVM getOccupancyWithNumSGPRs (<=80 -> 10, <=88 -> 9, <=100 -> 8, else 7), which equals
// floor(800 / sgprs) for every count up to the 112 a wave can hold.
uint64_t amd_waves_by_sgprs(const ArchLimits& arch, const KernelResources& k) {
  if (k.sgprs == 0) return arch.max_waves_per_simd;  // unknown: not limiting
  return std::min<uint64_t>(arch.max_waves_per_simd, arch.sgpr_file / k.sgprs);
}

// NVIDIA: blocks per SM that the register file allows (cuda_occupancy.h, registers limit).
uint64_t nvidia_blocks_by_registers(const ArchLimits& arch, const KernelResources& k, uint64_t warps_per_block) {
  if (k.arch_vgprs == 0) return kUnlimited;
  const uint64_t per_warp = align_up(uint64_t{k.arch_vgprs} * arch.wave_size, arch.register_granule);
  // The hardware checks the per-block limit as if every sub-partition received the block's warps.
  const uint64_t per_block_checked = per_warp * align_up(warps_per_block, arch.register_partitions);
  if (arch.max_registers_per_block && per_block_checked > arch.max_registers_per_block)
    reject(arch, fmt::format("{} registers per thread x {} threads need {} registers, over the {} per block",
                             k.arch_vgprs, k.threads_per_block, per_block_checked, arch.max_registers_per_block));
  const uint64_t warps_per_partition = arch.register_file / arch.register_partitions / per_warp;
  return warps_per_partition * arch.register_partitions / warps_per_block;
}

uint32_t as_waves_per_simd(uint64_t blocks, uint64_t waves_per_block, const ArchLimits& arch) {
  if (blocks >= kUnlimited) return arch.max_waves_per_simd;
  return static_cast<uint32_t>(
      std::min<uint64_t>(arch.max_waves_per_simd, ceil_div(blocks * waves_per_block, arch.simds_per_cu)));
}

}  // namespace

Occupancy compute_occupancy(const ArchLimits& arch, const KernelResources& k) {
  // Wave size and the register file that goes with it.
  const uint32_t wave_size = k.wave_size ? k.wave_size : arch.wave_size;
  uint64_t register_file = arch.register_file;
  uint64_t register_granule = arch.register_granule;
  if (wave_size != arch.wave_size) {
    if (arch.alt_wave_size == 0 || wave_size != arch.alt_wave_size)
      reject(arch, fmt::format("wave size {} is not supported", wave_size));
    register_file = arch.alt_register_file;
    register_granule = arch.alt_register_granule;
  }

  if (k.threads_per_block == 0) reject(arch, "a block of 0 threads");
  if (k.threads_per_block > arch.max_threads_per_block)
    reject(arch, fmt::format("{} threads per block, over the maximum of {}", k.threads_per_block,
                             arch.max_threads_per_block));
  if (k.arch_vgprs > arch.max_arch_vgprs)
    reject(arch, fmt::format("{} {} per thread, over the maximum of {}", k.arch_vgprs,
                             arch.nvidia ? "registers" : "VGPRs", arch.max_arch_vgprs));
  if (k.accum_vgprs > arch.max_accum_vgprs)
    reject(arch, arch.max_accum_vgprs == 0
                     ? fmt::format("{} AGPRs, but the architecture has none", k.accum_vgprs)
                     : fmt::format("{} AGPRs, over the maximum of {}", k.accum_vgprs, arch.max_accum_vgprs));
  if (arch.max_sgprs_per_wave && k.sgprs > arch.max_sgprs_per_wave)
    reject(arch, fmt::format("{} SGPRs per wave, over the maximum of {}", k.sgprs, arch.max_sgprs_per_wave));

  // LDS / shared memory per block as allocated. NVIDIA adds the driver's per-block reservation
  // before rounding, and its per-block maximum is checked including it (cuda_occupancy.h).
  uint64_t lds_allocated = 0;
  if (arch.nvidia) {
    lds_allocated = align_up(uint64_t{k.lds_bytes} + arch.lds_reserved_per_block, arch.lds_granule);
    if (lds_allocated > uint64_t{arch.max_lds_per_block} + arch.lds_reserved_per_block)
      reject(arch, fmt::format("{} bytes of shared memory per block, over the maximum of {}", k.lds_bytes,
                               arch.max_lds_per_block));
  } else {
    if (k.lds_bytes > arch.max_lds_per_block)
      reject(arch, fmt::format("{} bytes of LDS per workgroup, over the maximum of {}", k.lds_bytes,
                               arch.max_lds_per_block));
    lds_allocated = align_up(k.lds_bytes, arch.lds_granule);
  }

  const uint64_t waves_per_block = ceil_div(k.threads_per_block, wave_size);
  const uint64_t max_waves_per_cu = uint64_t{arch.max_waves_per_simd} * arch.simds_per_cu;

  // Each resource's limit, in whole blocks per CU (SM).
  const uint64_t blocks_by_waves = max_waves_per_cu / waves_per_block;
  uint64_t blocks_by_registers = kUnlimited;
  uint64_t blocks_by_sgprs = kUnlimited;
  uint64_t blocks_by_slots = arch.max_blocks_per_cu;
  if (arch.nvidia) {
    blocks_by_registers = nvidia_blocks_by_registers(arch, k, waves_per_block);
  } else {
    blocks_by_registers = blocks_from_waves_per_simd(amd_waves_by_vgprs(arch, k, register_file, register_granule),
                                                     arch, waves_per_block);
    if (arch.sgpr_file)
      blocks_by_sgprs = blocks_from_waves_per_simd(amd_waves_by_sgprs(arch, k), arch, waves_per_block);
    // Workgroup slots (LLVM getMaxWorkGroupsPerCU): a single-wave workgroup needs no barrier, so
    // only the wave slots bound it; otherwise min(waves per CU / waves per group, barriers).
    blocks_by_slots = waves_per_block == 1
                          ? max_waves_per_cu
                          : std::min<uint64_t>(max_waves_per_cu / waves_per_block, arch.max_blocks_per_cu);
  }
  const uint64_t blocks_by_lds = lds_allocated == 0 ? kUnlimited : arch.lds_per_cu / lds_allocated;

  // The smallest limit wins; on a tie, the earlier resource in this order is named.
  struct Limit {
    uint64_t blocks;
    const char* name;
  };
  const Limit limits[] = {
      {blocks_by_waves, "waves"},
      {blocks_by_registers, arch.nvidia ? "registers" : "vgpr"},
      {blocks_by_sgprs, "sgpr"},
      {blocks_by_lds, arch.nvidia ? "shared_memory" : "lds"},
      {blocks_by_slots, arch.nvidia ? "blocks" : "workgroup_slots"},
  };
  const Limit* binding = &limits[0];
  for (const Limit& l : limits)
    if (l.blocks < binding->blocks) binding = &l;
  if (binding->blocks == 0)
    reject(arch, fmt::format("one block of {} threads ({} waves of {}) does not fit in a {} (limited by {})",
                             k.threads_per_block, waves_per_block, wave_size, arch.nvidia ? "SM" : "CU",
                             binding->name));

  Occupancy occ;
  occ.blocks_per_cu = static_cast<uint32_t>(binding->blocks);
  occ.waves_per_cu = static_cast<uint32_t>(binding->blocks * waves_per_block);
  occ.waves_per_simd = static_cast<uint32_t>(ceil_div(occ.waves_per_cu, arch.simds_per_cu));
  occ.max_waves_per_simd = arch.max_waves_per_simd;
  occ.theoretical = static_cast<double>(occ.waves_per_cu) / static_cast<double>(max_waves_per_cu);
  occ.limiter = binding->name;
  occ.limit_by_waves = as_waves_per_simd(blocks_by_waves, waves_per_block, arch);
  occ.limit_by_registers = as_waves_per_simd(blocks_by_registers, waves_per_block, arch);
  occ.limit_by_sgprs = arch.sgpr_file ? as_waves_per_simd(blocks_by_sgprs, waves_per_block, arch) : 0;
  occ.limit_by_lds = as_waves_per_simd(blocks_by_lds, waves_per_block, arch);
  occ.limit_by_slots = as_waves_per_simd(blocks_by_slots, waves_per_block, arch);
  occ.wave_size = wave_size;
  occ.threads_per_block = k.threads_per_block;
  return occ;
}

}  // namespace rpl::analysis
