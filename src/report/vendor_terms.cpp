// See vendor_terms.hpp.
#include "report/vendor_terms.hpp"
#include "report/units.hpp"

#include <fmt/format.h>

namespace rpl::report {

bool is_nvidia_arch(std::string_view arch) { return arch.substr(0, 3) == "sm_"; }

std::string limiter_text(std::string_view limiter, std::string_view arch) {
  if (is_nvidia_arch(arch)) {
    if (limiter == "waves") return "warp slots";
    if (limiter == "shared_memory") return "shared memory";
    if (limiter == "blocks") return "blocks per SM";
    return std::string(limiter);  // "registers"
  }
  if (limiter == "waves") return "wave slots";
  if (limiter == "vgpr") return "VGPRs";
  if (limiter == "sgpr") return "SGPRs";
  if (limiter == "lds") return "LDS";
  if (limiter == "workgroup_slots") return "workgroup slots";
  return std::string(limiter);
}

std::string occupancy_text(const analysis::Occupancy& o, std::string_view arch) {
  if (is_nvidia_arch(arch))
    return fmt::format("{} warps per SM of {}, {} blocks per SM", o.waves_per_simd, o.max_waves_per_simd,
                       o.blocks_per_cu);
  return fmt::format("{} waves per SIMD of {}, {} workgroups per CU", o.waves_per_simd, o.max_waves_per_simd,
                     o.blocks_per_cu);
}

std::string resources_text(uint32_t registers, uint32_t accum_registers, uint32_t sgprs, uint32_t lds_bytes,
                           std::string_view arch) {
  if (is_nvidia_arch(arch))
    return fmt::format("registers per thread {}, shared memory {}", registers, small_bytes_text(lds_bytes));
  return fmt::format("arch VGPRs {}, AGPRs {}, SGPRs {}, LDS {}", registers, accum_registers, sgprs, small_bytes_text(lds_bytes));
}

}  // namespace rpl::report
