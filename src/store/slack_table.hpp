#pragma once
// The per-node critical-path rows (`analyze --slack-db FILE`): every dispatch's and copy's earliest start,
// slack and critical-path flag, as a SQLite table rather than JSON (at 100M dispatches the JSON rows were
// about 6 GB). A database of our own, never the trace: the reader opens traces read-only and this writer
// refuses a file that is not one of its own outputs.
//
// Tables (docs/critical-path.md):
//   rpl_node_slack_info(key TEXT PRIMARY KEY, value TEXT)   schema_version, inputs
//   rpl_node_slack_names(id INTEGER PRIMARY KEY, name TEXT)  kernel display names and copy kinds
//   rpl_node_slack(kind, name, process, id, stream, start_ns, duration_ns, earliest_start_ns, slack_ns,
//                  on_critical_path)                         one row per node, all INTEGER; kind 0 dispatch, 1 copy
//   view rpl_node_slack_named: the rows with kind and name as text
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::store {

inline constexpr const char* kSlackTableSchemaVersion = "1.0";

struct NodeSlackRow {
  int64_t kind = 0;     // 0 dispatch, 1 copy
  int64_t name = 0;     // into the names
  int64_t process = 0;  // into the trace's processes, as dag.json's path rows
  int64_t id = 0;       // dispatch or copy id
  int64_t stream = -1;  // rocpd stream id, -1 without a stream
  TimeNs start_ns = 0, duration_ns = 0, earliest_start_ns = 0, slack_ns = 0;
  int64_t on_critical_path = 0;
};

struct SlackTable {
  std::vector<std::string> inputs;  // the trace databases, recorded in rpl_node_slack_info
  std::vector<std::string> names;
  std::size_t rows = 0;
  std::function<NodeSlackRow(std::size_t)> row;  // row(i) for i in [0, rows)
};

// Throws rpl::Error(Usage) when `path` exists and is not an output of this writer: checked before a long
// analysis, and again when writing.
void check_slack_table_path(const std::string& path);

// Writes `table` to `path` through a temporary file renamed into place. Throws rpl::Error: Usage when
// `path` exists and is not an output of this writer (a trace, anything else), OutputFailed when writing fails.
void write_slack_table(const std::string& path, const SlackTable& table);

}  // namespace rpl::store
