#pragma once
// roofline.json (schemas/roofline.schema.json) and the roofline as report.html draws it, from the results
// of `analyze`. roofline.json is always written: without counter data its status says so and why, and it
// still lists each device with the ceilings that would be used.
#include <nlohmann/json.hpp>

#include "app/analyze.hpp"
#include "report/html_report.hpp"

namespace rpl::report {

nlohmann::json roofline_json(const app::AnalyzeResults& r);

// Ceilings of the device with the most profiled kernel time (the chart shows one device); points of every
// kernel with an hbm intensity and FLOPs, sized by share of GPU time.
RooflineView roofline_view(const app::AnalyzeResults& r);

}  // namespace rpl::report
