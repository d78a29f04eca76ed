#pragma once
// `analyze --slack-db FILE`: the per-node critical-path rows (earliest start, slack, on-path flag of every
// dispatch and copy) of an analysis, written to a SQLite table (store/slack_table.hpp) instead of dag.json.
#include <string>

#include "app/analyze.hpp"

namespace rpl::app {

// `r` must have been analysed with AnalyzeOptions::slack_db or node_rows (else there are no rows: throws
// rpl::Error(Internal)). Throws rpl::Error(OutputFailed) when the file cannot be written.
void write_slack_db(const std::string& path, const AnalyzeResults& r);

}  // namespace rpl::app
