#pragma once
// Internal to the rocpd reader (rocpd_reader.cpp: processes, entities, dispatches, copies;
// rocpd_read_calls.cpp: host API calls and the synchronisation operations they and GPU barriers record):
// the reader of one table set.
#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.hpp"
#include "store/id_map.hpp"
#include "store/rocpd_input.hpp"
#include "store/rocpd_reader.hpp"
#include "store/sqlite_db.hpp"
#include "support/large_vector.hpp"

namespace rpl::rocpd::detail {

using sqlite::Stmt;

inline uint32_t to_u32(int64_t v) { return v < 0 ? 0u : v > 0xffffffffLL ? 0xffffffffu : static_cast<uint32_t>(v); }

struct Progress {
  const ReadOptions& options;
  const std::string& path;
  std::size_t rows = 0;
  std::size_t next = 100000;
  void tick() {
    if (++rows < next) return;
    next += 100000;
    if (options.progress) options.progress(path, rows);
  }
};

struct ProcessRowInfo {
  std::string guid;
  int64_t pid = 0, ppid = 0;
  TimeNs start = 0, end = 0;
  std::string command, hostname;
  RankIdentity rank;
};

// What the "stream"/"event" arguments of one sync API call say.
struct SyncCallArgs {
  int64_t event_id = 0;
  bool has_stream = false;
  Index stream = kNoIndex;
  uint64_t event = 0;
};

// Reads one table set (one or, in merged un-suffixed tables, several processes) into the trace.
class SetReader {
 public:
  SetReader(Trace& trace, sqlite::Db& db, const TableSet& set, const ReadOptions& options, Progress& progress)
      : trace_(trace), db_(db), set_(set), options_(options), progress_(progress) {}

  void read() {
    std::vector<ProcessRowInfo> processes = read_processes();
    filter_ = processes.size() > 1;
    for (const ProcessRowInfo& info : processes) read_process(info);
  }

 private:
  Columns columns(std::string_view base) {
    const std::string& name = set_.table(base);
    return name.empty() ? Columns() : Columns(db_, name);
  }

  // "AND alias.guid = :guid" when several processes share the tables.
  std::string guid_and(const Columns& c, std::string_view alias) const {
    return filter_ && c.has("guid") ? fmt::format(" AND {}.guid = :guid", alias) : std::string();
  }
  std::string join_guid(const Columns& a, std::string_view alias_a, const Columns& b, std::string_view alias_b) const {
    return filter_ && a.has("guid") && b.has("guid") ? fmt::format(" AND {}.guid = {}.guid", alias_a, alias_b)
                                                     : std::string();
  }
  void bind_guid(Stmt& s) {
    if (int index = s.parameter_index(":guid"); index > 0) s.bind(index, std::string_view(guid_));
  }

  std::string metadata_guid();
  std::string fallback_guid();
  std::vector<ProcessRowInfo> read_processes();
  void read_process(const ProcessRowInfo& info);
  void read_agents();
  void read_queues_and_streams();
  void read_threads();
  void read_strings();
  void read_symbols();
  void read_dispatches();
  // The kernel dispatch rows, through SQL (any schema, every check with its message), or straight from the
  // file's pages (rocpd_dispatch_scan.cpp) where that gives the same records: nullopt when it cannot (the
  // trace as before), else whether the dispatch ids were strictly increasing, as from the SQL path.
  bool read_dispatches_through_sql(const Columns& k);
  std::optional<bool> read_dispatches_from_file(const Columns& k);
  // A dispatch's process, thread, agent, symbol, queue, stream and launch shape from its row's ids and sizes.
  void set_launch(Dispatch& d, int64_t tid, int64_t agent, int64_t kernel, std::optional<int64_t> queue,
                  std::optional<int64_t> stream, const int64_t (&sizes)[2], const int64_t (&dims)[6]);
  static constexpr std::string_view kDimensionColumns[6] = {"workgroup_size_x", "workgroup_size_y",
                                                            "workgroup_size_z", "grid_size_x",
                                                            "grid_size_y",      "grid_size_z"};
  void read_copies();
  std::vector<SyncCallArgs> read_sync_args(const Columns& region, const std::string& sync_name_ids);
  void read_regions();
  void read_event_operations();

  Index symbol_for(int64_t kernel_id);
  Index stream_for_arg(bool has_extdata_id, int64_t extdata_id, std::string_view value);
  uint32_t thread_for(int64_t tid) const {
    if (tid == 0) return 0;
    const uint32_t* t = threads_.find(tid);
    return t ? *t : to_u32(tid);
  }
  Index lookup(const IdMap<Index>& map, int64_t id) const {
    const Index* i = map.find(id);
    return i ? *i : kNoIndex;
  }
  // "LEFT JOIN <event> E ON E.id = X.event_id" and the expression for one event column.
  std::string event_join(const Columns& x, std::string_view alias) const {
    if (!event_.exists() || !x.has("event_id")) return {};
    return fmt::format(" LEFT JOIN \"{}\" E ON E.id = {}.event_id{}", event_.table(), alias,
                       join_guid(event_, "E", x, alias));
  }
  std::string event_column(const Columns& x, std::string_view column) const {
    return event_.exists() && x.has("event_id") ? event_("E", column) : "NULL";
  }
  // Reads the [start, end] pair of columns `start_col`, `start_col + 1` of a record into start/end. False
  // (after throwing, or under --lenient warning and dropping the record) when either is not an INTEGER,
  // lies outside [0, kMaxTime], or end < start: every difference and sum of two valid times fits in int64.
  bool read_interval(std::string_view what, int64_t id, const Stmt& s, int start_col, TimeNs& start, TimeNs& end);
  // Reads column `col` as an INTEGER in [min, max] into `out`; false as for read_interval.
  bool read_integer(std::string_view what, int64_t id, std::string_view column, const Stmt& s, int col, int64_t min,
                    int64_t max, int64_t& out);
  // read_integer's check inlined for loops over every dispatch: an INTEGER in [min, max] is read here, and
  // NULL reads as `null_value` unless that is kNullIsInvalid; anything else goes to read_integer (its message,
  // or the drop under --lenient).
  static constexpr int64_t kNullIsInvalid = std::numeric_limits<int64_t>::min();
  bool checked_integer(std::string_view what, int64_t id, std::string_view column, const Stmt& s, int col,
                       int64_t min, int64_t max, int64_t null_value, int64_t& out) {
    const Stmt::Cell c = s.cell(col);
    const int type = c.type();
    if (type == SQLITE_INTEGER)
      out = c.i64();
    else if (type == SQLITE_NULL && null_value != kNullIsInvalid)
      out = null_value;
    else
      return read_integer(what, id, column, s, col, min, max, out);
    return (out >= min && out <= max) || read_integer(what, id, column, s, col, min, max, out);
  }
  // Throws InputInvalid with `problem`, or under --lenient warns (the first ten times) and returns true.
  bool reject_record(std::string_view what, int64_t id, const std::string& problem);
  // Reserves for a table's rows from MAX(rowid) - MIN(rowid): two b-tree seeks, unlike COUNT(*). Only for
  // suffixed sets: those are tables (un-suffixed ones may be views, which have no rowid). Row ids are the
  // input's to choose (one row with id 2^30): the estimate is capped by what the file can hold, a row
  // taking at least kMinRowBytes of its pages.
  void reserve_for(const Columns& c, auto& vector) {
    if (set_.suffix.empty()) return;
    constexpr int64_t kMinRowBytes = 16;
    // As two scalar subqueries: SQLite seeks for a lone MIN or MAX, but scans the whole table for both in one
    // SELECT (issue 32: 5% of analyze at 1M dispatches).
    int64_t n = sqlite::query_int(
        db_, fmt::format("SELECT (SELECT MAX(rowid) FROM \"{0}\") - (SELECT MIN(rowid) FROM \"{0}\") + 1", c.table()));
    int64_t file_bytes = sqlite::query_int(db_, "PRAGMA page_count") * sqlite::query_int(db_, "PRAGMA page_size");
    n = std::min(n, file_bytes / kMinRowBytes);
    if (n <= 0 || n >= (int64_t{1} << 31)) return;
    std::size_t wanted = vector.size() + static_cast<std::size_t>(n);
    // Grow geometrically when merging many files, so that each file does not copy all before it.
    // Huge pages where the kernel gives them (issue 32: the dispatch array is the largest of the run, and each
    // fresh 4 KiB page is a fault).
    if (wanted > vector.capacity())
      reserve_with_huge_pages(vector, std::max(wanted, vector.capacity() + vector.capacity() / 2));
  }

  Trace& trace_;
  sqlite::Db& db_;
  const TableSet& set_;
  const ReadOptions& options_;
  Progress& progress_;
  bool filter_ = false;

  // Per process:
  std::string guid_;
  Index process_ = kNoIndex;
  Columns event_;
  IdMap<Index> agents_, queues_, streams_, symbols_, strings_;
  IdMap<uint32_t> threads_;
  IdMap<SyncKind> sync_names_;  // rocpd_string id -> kind, for API names that create dependencies
  std::size_t dropped_ = 0;
};

}  // namespace rpl::rocpd::detail
