#pragma once
// Reporters for the analysis across ranks (analysis/multi_rank.hpp): the multi_rank.json document
// (schemas/multi-rank.schema.json), the terminal summary and multi_rank.html. The rank summary file is
// app/rank_summary_file.hpp's.
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/multi_rank.hpp"

namespace rpl::report {

// 1.2 (issue 29): each rank's kernel time (kernel_time_ms), and the memory copies and NVTX / ROCTx ranges of every
// rank (copy_summary, range_summary).
inline constexpr const char* kMultiRankSchemaVersion = "1.2";

nlohmann::json multi_rank_document(const analysis::MultiRankResult& r);
// The terminal summary in `width` columns (the per-rank table drops its least telling columns when narrow;
// collective keys and evidence are wrapped or cut to fit).
std::string multi_rank_terminal(const analysis::MultiRankResult& r, std::size_t width = 80);
std::string multi_rank_html(const analysis::MultiRankResult& r);
// The per-communicator part of each (report/communicators_report.cpp).
nlohmann::json communicators_json(const analysis::MultiRankResult& r);
std::string communicators_terminal(const analysis::MultiRankResult& r, std::size_t width);
std::string communicators_html(const analysis::MultiRankResult& r);
// The copy and range summaries across ranks (report/multi_rank_summaries.cpp): added to the document, a terminal
// section of at most `top` rows per table in `width` columns, and the page's two sections.
void add_multi_rank_summaries(nlohmann::json& doc, const analysis::MultiRankResult& r);
std::string multi_rank_summaries_terminal(const analysis::MultiRankResult& r, std::size_t width, std::size_t top = 10);
std::string multi_rank_summaries_html(const analysis::MultiRankResult& r);
// Writes multi_rank.json (and multi_rank.html unless !html) into `dir`, atomically; returns the JSON document.
nlohmann::json write_multi_rank_files(const std::string& dir, const analysis::MultiRankResult& r, bool html);

}  // namespace rpl::report
