#pragma once
// Reads rocpd SQLite databases (as rocprofv3 of ROCm 7.x writes them, and as our own writer writes them)
// into the in-memory Trace model. See docs/rocpd.md for what is read from where.
//
// - Tables are found by their per-process UUID suffix (rocpd_<name>_<uuid>); the un-suffixed views are
//   used only as a fallback. Several databases are merged into one Trace, keyed by process GUID.
// - Schema 3.0.x variants are recognised by which columns and tables exist, never by the metadata string.
// - The database is opened read-only and never modified.
// - Every problem is an rpl::Error naming the file and what is wrong (see support/errors.hpp).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.hpp"

namespace rpl::rocpd {

struct ReadOptions {
  // Drop records that break the trace's own rules (end < start) with a warning instead of failing.
  bool lenient = false;
  // Load host API calls (rocpd_region) into Trace::api_calls. Dependency-creating calls are always
  // turned into Trace::sync_ops, whatever this says.
  bool load_api_calls = true;
  // Called now and then while reading: (file, rows read so far).
  std::function<void(std::string_view file, std::size_t rows)> progress;
  // Read the kernel dispatch rows straight from the database file's pages where the result is provably what
  // SQL would return (store/sqlite_file_scan.hpp; issue 32: a fraction of SQLite's CPU time), else through
  // SQL. false: always through SQL (tests compare the two).
  bool file_scan = true;
  // When set, counts the dispatch tables read each way and keeps the last reason for SQL (tests, --debug).
  struct ScanCounts {
    std::size_t from_file = 0, through_sql = 0;
    std::string why_sql;
  };
  ScanCounts* scan_counts = nullptr;
  // read_databases: databases read at once (`analyze --jobs N`), each into its own trace, merged in the order
  // given (model/trace_append.hpp): the trace, the warnings and the errors are those of reading them one after
  // the other. Costs up to `jobs` databases' traces beside the merged one. 1: one after the other, into one trace.
  unsigned jobs = 1;
};

// Reads one database into `trace` (appending; call several times to merge processes).
void read_database(Trace& trace, const std::string& path, const ReadOptions& options = {});

// Reads and merges several databases (options.jobs at once). Throws rpl::Error(InputEmpty) if none holds a
// dispatch or copy. options.progress is called from the calling thread only.
Trace read_databases(const std::vector<std::string>& paths, const ReadOptions& options = {});

}  // namespace rpl::rocpd
