#pragma once
// roofline.json (schemas/roofline.schema.json) and the roofline as report.html draws it, from the results
// of `analyze`. roofline.json is always written: without counter data its status says so and why, and it
// still lists each device with the ceilings that would be used.
#include <nlohmann/json.hpp>

#include "app/analyze.hpp"
#include "report/html_report.hpp"

namespace rpl::report {

nlohmann::json roofline_json(const app::AnalyzeResults& r);

// One kernel's roofline point in brief (roofline.json has all of it); null without a point. `kernel`
// indexes r.stats.kernels.
nlohmann::json kernel_roofline_summary(const app::AnalyzeResults& r, std::size_t kernel);
// profile.json's "roofline": the status, the number of kernel points, the dominant kernel's point in brief;
// null only when the trace holds no counter data at all.
nlohmann::json profile_roofline_json(const app::AnalyzeResults& r);

// Ceilings of the device with the most profiled kernel time (the chart shows one device); points of every
// kernel with an hbm intensity and FLOPs, sized by share of GPU time.
RooflineView roofline_view(const app::AnalyzeResults& r);

}  // namespace rpl::report
