#pragma once
// `rocm-perf analyze DIR` for a distributed job: every rank's database read one at a time (--jobs N: N at a time)
// and reduced to a small summary (analysis/rank_summary.hpp) before the next is read, so memory is bounded by the largest
// rank, then one analysis across the ranks (analysis/multi_rank.hpp). The summaries can also be written
// per task (--rank-summary) and merged later (--merge-summaries).
#include <cstddef>
#include <optional>
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
  // Databases read and summarized at once (`analyze --jobs N`); the summaries, their order and the log lines are
  // those of one at a time. Memory: up to `jobs` ranks' traces at once instead of one.
  unsigned jobs = 1;
};

std::vector<analysis::RankSummary> summarize_databases(const std::vector<std::string>& databases,
                                                       const RankSummaryRead& options);

// The analysis across ranks, from databases (files or directories of them) or from rank summary files.
struct AcrossRanksOptions {
  std::vector<std::string> inputs;
  bool merge_summaries = false;             // --merge-summaries: the inputs are rank summary files
  std::optional<std::string> rank_summary;  // --rank-summary FILE: write the summaries there, analyse nothing
  bool perfetto = false;                    // --perfetto (checked here; written by write_rank_perfetto)
  std::vector<analysis::WhatIf> what_if;
  bool lenient = false;
  bool show_progress = false;
  bool align_clocks = true;
  unsigned jobs = 1;  // RankSummaryRead::jobs
};

struct AcrossRanksRun {
  std::vector<std::string> databases;  // the rank databases read (none when merging summaries)
  std::size_t ranks = 0;               // ranks summarized or read
  // Absent when options.rank_summary asked for the summary file only.
  std::optional<analysis::MultiRankResult> result;
};

// Throws rpl::Error(Usage) for options that do not go together (--merge-summaries with --rank-summary,
// --perfetto or --what-if), and what summarize_databases / read_rank_summary_files / analyze_ranks throw.
AcrossRanksRun run_across_ranks(const AcrossRanksOptions& options);

// multi_rank.perfetto.json: one Perfetto process per rank (named "rank N (host)"), a thread per stream,
// clocks aligned with the result's offsets; the databases are read again, one at a time.
void write_rank_perfetto(const std::string& path, const std::vector<std::string>& databases,
                         const analysis::MultiRankResult& result, bool lenient);

}  // namespace rpl::app
