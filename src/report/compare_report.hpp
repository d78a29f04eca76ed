#pragma once
// Outputs of `rocm-perf compare`: compare.json (schemas/compare.schema.json), the terminal comparison and
// compare.html (report.html's style).
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/run_compare.hpp"
#include "report/kernel_names.hpp"

namespace rpl::report {

// compare.json 1.0 (issue 29): the runs, the totals with their significance, kernels, ranges, critical-path
// contributors, roofline points and the warnings.
inline constexpr const char* kCompareSchemaVersion = "1.1";

struct CompareReportOptions {
  std::size_t top = 10;  // rows of each terminal table
  NameForm names = NameForm::Short;
  std::size_t name_width = 0;  // 0: what the width leaves
  std::size_t width = 80;
};

nlohmann::json compare_document(const analysis::CompareResult& r);
std::string compare_terminal(const analysis::CompareResult& r, const CompareReportOptions& options);
std::string compare_html(const analysis::CompareResult& r);
// compare.json and (html) compare.html in `dir` (created), each written atomically; returns the document.
nlohmann::json write_compare_files(const std::string& dir, const analysis::CompareResult& r, bool html);

}  // namespace rpl::report
