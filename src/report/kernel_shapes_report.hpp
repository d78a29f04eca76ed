#pragma once
// Launch shapes of a kernel for the reports (JSON and one-line text in each vendor's words).
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/kernel_stats.hpp"

namespace rpl::report {

// The first `max_shapes` shapes (by total time), each {grid, block, blocks, lds_bytes, durations}; grid is
// in work-items (threads), blocks = grid / block per dimension.
nlohmann::json shapes_json(const analysis::KernelStats& k, std::size_t max_shapes);
// "grid 64x8x1 blocks of 128x1x1 threads, 4.0 KiB shared memory" (NVIDIA) or
// "grid 8192x1x1 work-items in workgroups of 256x1x1, 4.0 KiB LDS" (AMD).
std::string shape_text(const analysis::LaunchShape& s, bool nvidia);

}  // namespace rpl::report
