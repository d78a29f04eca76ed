#pragma once
// `rocm-perf analyze DIR` for a distributed job: every rank's database read one at a time and reduced to
// a small summary (analysis/rank_summary.hpp) before the next is read, so memory is bounded by the largest
// rank, then one analysis across the ranks (analysis/multi_rank.hpp). The summaries can also be written
// per task (--rank-summary) and merged later (--merge-summaries).
#include <string>
#include <vector>

#include "analysis/multi_rank.hpp"

namespace rpl::app {

// The rocpd databases of `inputs`: files as given, directories searched recursively (*.db).
std::vector<std::string> rank_databases(const std::vector<std::string>& inputs);

struct RankSummaryRead {
  std::vector<analysis::WhatIf> what_if;
  bool lenient = false;
  bool show_progress = false;
  // --rank-summary: a database with no rank in it (the launcher's own: torchrun's agent, mpirun) gives an empty
  // summary rather than an error, so a job array over every database of a run needs no filtering.
  bool allow_no_rank = false;
};

std::vector<analysis::RankSummary> summarize_databases(const std::vector<std::string>& databases,
                                                       const RankSummaryRead& options);

// multi_rank.perfetto.json: one Perfetto process per rank (named "rank N (host)"), a thread per stream,
// clocks aligned with the result's offsets; the databases are read again, one at a time.
void write_rank_perfetto(const std::string& path, const std::vector<std::string>& databases,
                         const analysis::MultiRankResult& result, bool lenient);

}  // namespace rpl::app
