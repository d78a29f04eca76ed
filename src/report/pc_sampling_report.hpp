#pragma once
// `profile --pc-sampling` in profile.json ("pc_sampling"), on the terminal and in report.html.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/pc_hotspots.hpp"
#include "app/pc_sampling.hpp"

namespace rpl::report {

nlohmann::json pc_sampling_json(const app::PcSamplingResult& r);
// The hottest `kernels` kernels, each with its hottest instructions and lines.
std::string pc_sampling_terminal(const std::vector<analysis::KernelHotspots>& kernels, std::size_t max_kernels,
                                 std::size_t rows);
// A complete <h2> section with one table per kernel; "" when there are no hotspots.
std::string pc_sampling_html(const std::vector<analysis::KernelHotspots>& kernels, std::size_t max_kernels);

}  // namespace rpl::report
