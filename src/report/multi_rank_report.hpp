#pragma once
// Reporters for the analysis across ranks (analysis/multi_rank.hpp): the rank summary file that
// `analyze --rank-summary` writes and `--merge-summaries` reads (schemas/rank-summary.schema.json), the
// multi_rank.json document (schemas/multi-rank.schema.json), the terminal summary and multi_rank.html.
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/multi_rank.hpp"

namespace rpl::report {

inline constexpr const char* kRankSummarySchemaVersion = "1.0";
inline constexpr const char* kMultiRankSchemaVersion = "1.0";

nlohmann::json rank_summaries_document(const std::vector<analysis::RankSummary>& summaries);
// Reads what rank_summaries_document wrote; throws rpl::Error(InputInvalid) naming `file` and the problem.
std::vector<analysis::RankSummary> rank_summaries_from_document(const nlohmann::json& doc, const std::string& file);

nlohmann::json multi_rank_document(const analysis::MultiRankResult& r);
std::string multi_rank_terminal(const analysis::MultiRankResult& r);
std::string multi_rank_html(const analysis::MultiRankResult& r);

}  // namespace rpl::report
