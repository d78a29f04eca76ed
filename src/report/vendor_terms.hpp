#pragma once
// Each vendor's own words for the same hardware ideas (docs/vendor-terms.md has the table). The JSON keys
// stay neutral (AMD's, as rocpd names them); the terminal and HTML speak the device's language.
#include <string>
#include <string_view>

#include "analysis/occupancy.hpp"

namespace rpl::report {

bool is_nvidia_arch(std::string_view arch);  // "sm_90", "sm_80", ...
// An occupancy limiter name (analysis/occupancy.hpp) in words: "warp slots", "registers", "shared memory",
// "blocks per SM" (NVIDIA); "wave slots", "VGPRs", "SGPRs", "LDS", "workgroup slots" (AMD).
std::string limiter_text(std::string_view limiter, std::string_view arch);
// "24 warps per SM of 64, 3 blocks per SM" / "8 waves per SIMD of 8, 4 workgroups per CU".
std::string occupancy_text(const analysis::Occupancy& o, std::string_view arch);
// "registers per thread 168, shared memory 48.0 KiB" / "arch VGPRs 128, AGPRs 0, SGPRs 96, LDS 64.0 KiB".
std::string resources_text(uint32_t registers, uint32_t accum_registers, uint32_t sgprs, uint32_t lds_bytes,
                           std::string_view arch);

}  // namespace rpl::report
