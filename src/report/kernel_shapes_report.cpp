// See kernel_shapes_report.hpp.
#include "report/kernel_shapes_report.hpp"

#include <fmt/format.h>

#include "report/analyze_report.hpp"
#include "report/units.hpp"

namespace rpl::report {
namespace {

uint32_t blocks(uint32_t grid, uint32_t block) { return block ? (grid + block - 1) / block : grid; }

}  // namespace

nlohmann::json shapes_json(const analysis::KernelStats& k, std::size_t max_shapes) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < k.shapes.size() && i < max_shapes; ++i) {
    const auto& s = k.shapes[i];
    out.push_back({{"grid", {s.grid[0], s.grid[1], s.grid[2]}},
                   {"block", {s.block[0], s.block[1], s.block[2]}},
                   {"blocks", {blocks(s.grid[0], s.block[0]), blocks(s.grid[1], s.block[1]), blocks(s.grid[2], s.block[2])}},
                   {"lds_bytes", s.lds_bytes},
                   {"durations", durations_json(s.durations)},
                   {"duration_class_medians_ns", s.class_medians_ns},
                   {"within_class_cv", s.within_class_cv}});
  }
  return out;
}

std::string shape_text(const analysis::LaunchShape& s, bool nvidia) {
  if (nvidia)
    return fmt::format("grid {}x{}x{} blocks of {}x{}x{} threads, {} shared memory", blocks(s.grid[0], s.block[0]),
                       blocks(s.grid[1], s.block[1]), blocks(s.grid[2], s.block[2]), s.block[0], s.block[1],
                       s.block[2], small_bytes_text(s.lds_bytes));
  return fmt::format("grid {}x{}x{} work-items in workgroups of {}x{}x{}, {} LDS", s.grid[0], s.grid[1], s.grid[2],
                     s.block[0], s.block[1], s.block[2], small_bytes_text(s.lds_bytes));
}

}  // namespace rpl::report
