#pragma once
// The summary tables beside the kernel table (analysis/trace_summaries.hpp): memory copies by kind and NVTX /
// ROCTx ranges by name, as analysis.json entries, terminal tables, and the CSV files `analyze` writes
// (kernel_stats.csv, memory_copy_stats.csv, range_stats.csv: rocprofv3 --stats columns, plus bytes and
// bandwidth for copies).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/trace_summaries.hpp"
#include "app/analyze.hpp"

namespace rpl::report {

nlohmann::json copy_summary_json(const std::vector<analysis::CopyKindSummary>& copies);
nlohmann::json range_summary_json(const std::vector<analysis::RangeSummary>& ranges);
// "Memory copies ..." and "Ranges ..." tables in `width` columns, the `top` longest of each; "" when the trace
// has neither.
std::string summaries_terminal(const app::AnalyzeResults& r, std::size_t top, std::size_t width);
// kernel_stats.csv, memory_copy_stats.csv and range_stats.csv in `dir`, each written atomically.
void write_summary_csvs(const std::string& dir, const app::AnalyzeResults& r);

}  // namespace rpl::report
