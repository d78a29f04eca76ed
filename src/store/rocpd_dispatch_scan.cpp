// The kernel dispatch rows read straight from the database file's pages (issue 32: SQLite's virtual machine and
// column calls were most of the CPU time of reading 100M dispatches). The rows, their order and every value are
// those of read_dispatches_through_sql; whatever that path would treat specially (a value of another type or out
// of range, which it reports or drops under --lenient; several processes in one table; event ids that are not
// in order, for the merge below; a schema the scan cannot prove it reads as SQLite does) sends the whole table
// back to that path, with the trace as it was before.
#include <fmt/core.h>

#include "store/rocpd_set_reader.hpp"
#include "store/sqlite_file_scan.hpp"
#include "support/checked_math.hpp"
#include "support/log.hpp"

namespace rpl::rocpd::detail {

namespace {

using sqlite::FileScanUnsupported;
using sqlite::StoredValue;

[[noreturn]] void through_sql(const std::string& why) { throw FileScanUnsupported(why); }

// An integer column that SQL reads with a check: NULL as `null_value` (or not allowed), else an INTEGER in
// [min, max]; anything else is for the SQL path's message (or --lenient's drop).
int64_t checked_value(const StoredValue& v, int64_t min, int64_t max, std::optional<int64_t> null_value,
                      std::string_view column) {
  if (v.kind == StoredValue::Null && null_value) return *null_value;
  if (v.kind != StoredValue::Integer || v.value < min || v.value > max)
    through_sql(fmt::format("a {} that SQL must check", column));
  return v.value;
}

// A column SQL reads with sqlite3_column_int64 (NULL is 0); other types it converts, which the scan leaves to it.
int64_t plain_value(const StoredValue& v, std::string_view column) {
  if (v.kind == StoredValue::Null) return 0;
  if (v.kind != StoredValue::Integer) through_sql(fmt::format("a {} that is not an integer", column));
  return v.value;
}

// Column `c` of the current row, or NULL where the table has no such column (as the SQL selects NULL).
const StoredValue& column_or_null(const sqlite::RowidTableScan& row, int c) {
  static const StoredValue kNull{};
  if (c < 0) return kNull;
  const StoredValue& v = row[c];
  if (v.kind == StoredValue::Absent) through_sql("a record without a column added to its table later");
  return v;
}

}  // namespace

std::optional<bool> SetReader::read_dispatches_from_file(const Columns& k) {
  auto count_sql = [&](const std::string& why) {
    log::debug("{}: {} read through SQL ({})", db_.path(), k.table(), why);
    if (options_.scan_counts) ++options_.scan_counts->through_sql, options_.scan_counts->why_sql = why;
    return std::nullopt;
  };
  if (!options_.file_scan) return count_sql("file scans are off");
  if (filter_) return count_sql("several processes share the table");
  const std::size_t first = trace_.dispatches.size();
  const std::size_t rows_before = progress_.rows, next_before = progress_.next;
  try {
    sqlite::DatabaseFile file(db_);
    const int c_dispatch = k.index("dispatch_id"), c_tid = k.index("tid"), c_agent = k.index("agent_id"),
              c_kernel = k.index("kernel_id"), c_queue = k.index("queue_id"), c_stream = k.index("stream_id"),
              c_start = k.index("start"), c_end = k.index("end"), c_scratch = k.index("private_segment_size"),
              c_lds = k.index("group_segment_size");
    int c_dims[6];
    for (int i = 0; i < 6; ++i) c_dims[i] = k.index(kDimensionColumns[i]);
    // The correlation id: event.stack_id of the row whose id (a rowid alias) is the dispatch's event_id, as the
    // SQL's LEFT JOIN gives it, merged in order instead of looked up.
    const bool joined = event_.exists() && k.has("event_id");
    const int c_event = joined ? k.index("event_id") : -1;
    const int e_id = event_.index("id"), e_stack = joined ? event_.index("stack_id") : -1;
    int max_column = 0;
    for (int c : {c_dispatch, c_tid, c_agent, c_kernel, c_queue, c_stream, c_start, c_end, c_scratch, c_lds, c_event})
      max_column = std::max(max_column, c);
    for (int c : c_dims) max_column = std::max(max_column, c);
    sqlite::RowidTableScan row(file, file.rowid_table_root(k.table()), max_column);
    std::optional<sqlite::RowidTableScan> event;
    if (joined) event.emplace(file, file.rowid_table_root(event_.table()), std::max(e_id, e_stack));
    bool event_valid = false, events_done = false;
    int64_t last_event_id = std::numeric_limits<int64_t>::min();

    bool increasing = true;
    int64_t previous = 0;
    while (row.next()) {
      progress_.tick();
      Dispatch d;
      const StoredValue& id = column_or_null(row, c_dispatch);
      if (id.kind != StoredValue::Integer) through_sql("a dispatch id that is not an integer");
      d.dispatch_id = id.value;
      d.start = checked_value(column_or_null(row, c_start), 0, kMaxTimeNs, std::nullopt, "start");
      d.end = checked_value(column_or_null(row, c_end), 0, kMaxTimeNs, std::nullopt, "end");
      if (d.end < d.start) through_sql("a dispatch that ends before it starts");
      const int64_t sizes[2] = {checked_value(column_or_null(row, c_scratch), 0, 0xffffffffLL, 0, "size"),
                                checked_value(column_or_null(row, c_lds), 0, 0xffffffffLL, 0, "size")};
      int64_t dims[6];
      for (int i = 0; i < 6; ++i) dims[i] = checked_value(column_or_null(row, c_dims[i]), 1, 0xffffffffLL, 1, "dimension");
      const int64_t tid = plain_value(column_or_null(row, c_tid), "tid");
      const int64_t agent = plain_value(column_or_null(row, c_agent), "agent_id");
      const int64_t kernel = plain_value(column_or_null(row, c_kernel), "kernel_id");
      const StoredValue& queue = column_or_null(row, c_queue);
      const StoredValue& stream = column_or_null(row, c_stream);
      const std::optional<int64_t> queue_id =
          queue.kind == StoredValue::Null ? std::nullopt : std::optional(plain_value(queue, "queue_id"));
      const std::optional<int64_t> stream_id =
          stream.kind == StoredValue::Null ? std::nullopt : std::optional(plain_value(stream, "stream_id"));
      d.correlation_id = 0;  // no event row: the LEFT JOIN's NULL
      if (joined) {
        const StoredValue& event_id = column_or_null(row, c_event);
        if (event_id.kind == StoredValue::Integer) {
          if (event_id.value < last_event_id) through_sql("event ids that are not in order");
          last_event_id = event_id.value;
          while (!events_done && (!event_valid || event->rowid() < event_id.value)) {
            event_valid = event->next();
            events_done = !event_valid;
          }
          if (event_valid && event->rowid() == event_id.value) {
            // A rowid alias is stored as NULL; anything else means "id" is an ordinary column (not the rowid).
            if ((*event)[e_id].kind != StoredValue::Null) through_sql("an event id that is not the rowid");
            d.correlation_id = plain_value(column_or_null(*event, e_stack), "stack_id");
          }
        } else if (event_id.kind != StoredValue::Null) {
          through_sql("an event id that is not an integer");
        }
      }
      if (trace_.dispatches.size() > first && d.dispatch_id <= previous) increasing = false;
      previous = d.dispatch_id;
      set_launch(d, tid, agent, kernel, queue_id, stream_id, sizes, dims);
      trace_.dispatches.push_back(d);
    }
    if (options_.scan_counts) ++options_.scan_counts->from_file;
    log::debug("{}: {} read from the file's pages", db_.path(), k.table());
    return increasing;
  } catch (const FileScanUnsupported& e) {
    trace_.dispatches.resize(first);
    progress_.rows = rows_before, progress_.next = next_before;
    return count_sql(e.what());
  }
}

}  // namespace rpl::rocpd::detail
