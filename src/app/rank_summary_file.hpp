#pragma once
// The rank summary file that `analyze --rank-summary` writes and `--merge-summaries` reads
// (schemas/rank-summary.schema.json): the one home of its writer and its reader.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/rank_summary.hpp"

namespace rpl::app {

// 2.1 (issue 29): each rank's kernel time (kernel_time_ns), memory copies by kind and ranges by name.
inline constexpr const char* kRankSummaryFileSchemaVersion = "2.1";

nlohmann::json rank_summaries_document(const std::vector<analysis::RankSummary>& summaries);
// Reads what rank_summaries_document wrote; throws rpl::Error(InputInvalid) naming `file` and the problem.
std::vector<analysis::RankSummary> rank_summaries_from_document(const nlohmann::json& doc, const std::string& file);

// Atomic write; throws rpl::Error(OutputFailed).
void write_rank_summary_file(const std::string& path, const std::vector<analysis::RankSummary>& summaries);
// Every rank of every file, in order. Throws rpl::Error: InputMissing (unreadable), InputInvalid (not JSON, not
// a rank summary), InputEmpty (no rank in any of them).
std::vector<analysis::RankSummary> read_rank_summary_files(const std::vector<std::string>& files);

// Activity bins rounded to 1/1000, as the summary file and multi_rank.json hold them.
nlohmann::json rounded_bins_json(const std::vector<float>& bins);

}  // namespace rpl::app
