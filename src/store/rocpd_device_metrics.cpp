#include "store/rocpd_device_metrics.hpp"

#include <fmt/core.h>

#include <cmath>

#include "store/rocpd_schema.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {
namespace {

constexpr std::string_view kTrackPrefix = "rpl_device_metric:";

// JSON string literal (device names are printable ASCII in practice; anything else is escaped).
std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20 || c >= 0x7f) out += fmt::format("\\u{:04x}", c);
    else out += char(c);
  }
  return out + '"';
}

}  // namespace

std::size_t append_device_metrics(const std::string& path, const std::vector<DeviceMetricSeries>& series,
                                  const std::string& guid) {
  std::unique_ptr<sqlite::Db> opened = open_for_append(path);
  sqlite::Db& db = *opened;
  const std::vector<TableSet> sets = find_table_sets(db);
  const TableSet& set = pick_table_set(sets, guid, path, "device samples");
  auto table = [&](std::string_view base) { return writable_table(db, set, base, "device samples"); };
  const std::string strings = table("string"), tracks = table("track"), samples = table("sample"),
                    processes = table("info_process"), threads = table("info_thread"), events = table("event");
  db.exec("BEGIN IMMEDIATE");  // rolled back when the connection closes without COMMIT (any exception)

  int64_t nid = 0, pid = 0, os_pid = 0;
  {
    sqlite::Stmt s(db, fmt::format("SELECT nid, id, pid FROM \"{}\" ORDER BY rowid LIMIT 1", processes));
    if (!s.step()) throw Error(ExitCode::InputInvalid, fmt::format("{}: no process row to attach samples to", path));
    nid = s.i64(0);
    pid = s.i64(1);
    os_pid = s.i64(2);
  }
  sqlite::Stmt add_string(db, fmt::format("INSERT OR IGNORE INTO \"{}\" (string) VALUES (?)", strings));
  sqlite::Stmt string_id(db, fmt::format("SELECT id FROM \"{}\" WHERE string = ?", strings));
  auto intern = [&](const std::string& text) {
    add_string.bind(1, std::string_view(text));
    add_string.run();
    string_id.bind(1, std::string_view(text));
    if (!string_id.step()) throw Error(ExitCode::OutputFailed, fmt::format("{}: cannot intern '{}'", path, text));
    const int64_t id = string_id.i64(0);
    string_id.reset();
    return id;
  };
  // AMD's `samples` view joins each sample to its track's thread and to an event: the samples belong to a thread
  // row of their own (the monitor samples the device, not a thread of the application) and each carries an
  // event holding its value, so rocprofv3's readers list them as well as ours.
  int64_t tid = 0;
  {
    sqlite::Stmt t(db, fmt::format("INSERT INTO \"{}\" (nid, pid, tid, name, extdata) VALUES (?, ?, ?, ?, ?)", threads));
    t.bind(1, nid);
    t.bind(2, pid);
    t.bind(3, os_pid);
    t.bind(4, std::string_view("rocm-perf device monitor"));
    t.bind(5, std::string_view(R"({"rpl_device_monitor": true})"));
    t.run();
    tid = sqlite3_last_insert_rowid(db.handle());
  }
  const int64_t category_id = intern("rpl_device_metric");
  sqlite::Stmt add_track(db, fmt::format("INSERT INTO \"{}\" (nid, pid, tid, name_id, extdata) VALUES (?, ?, ?, ?, ?)", tracks));
  sqlite::Stmt add_event(db, fmt::format("INSERT INTO \"{}\" (category_id, extdata) VALUES (?, ?)", events));
  sqlite::Stmt add_sample(db, fmt::format("INSERT INTO \"{}\" (track_id, timestamp, event_id, extdata) VALUES (?, ?, ?, ?)", samples));
  std::size_t written = 0;
  for (const DeviceMetricSeries& s : series) {
    if (s.times.size() != s.values.size())
      throw Error(ExitCode::Internal, fmt::format("device metric {}: {} times for {} values", s.metric, s.times.size(),
                                                  s.values.size()));
    const int64_t name_id = intern(std::string(kTrackPrefix) + s.metric);
    add_track.bind(1, nid);
    add_track.bind(2, pid);
    add_track.bind(3, tid);
    add_track.bind(4, name_id);
    add_track.bind(5, fmt::format(R"({{"rpl_device_metric": {{"device": {}, "device_name": {}, "metric": {}, "unit": {}, "source": {}}}}})",
                                  s.device, json_string(s.device_name), json_string(s.metric), json_string(s.unit),
                                  json_string(s.source)));
    add_track.run();
    const int64_t track_id = sqlite3_last_insert_rowid(db.handle());
    for (std::size_t i = 0; i < s.times.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;  // a reading the driver could not give is no sample
      const std::string value = fmt::format(R"({{"value": {}}})", s.values[i]);
      add_event.bind(1, category_id);
      add_event.bind(2, std::string_view(value));
      add_event.run();
      add_sample.bind(1, track_id);
      add_sample.bind(2, s.times[i]);
      add_sample.bind(3, int64_t(sqlite3_last_insert_rowid(db.handle())));
      add_sample.bind(4, std::string_view(value));
      add_sample.run();
      ++written;
    }
  }
  db.exec("COMMIT");
  return written;
}

std::size_t read_device_metrics(Trace& trace, sqlite::Db& db, const TableSet& set, const std::string& guid) {
  if (!set.has("track") || !set.has("sample")) return 0;
  Columns t(db, set.table("track")), s(db, set.table("sample"));
  if (!t.has("extdata") || !s.has("extdata") || !s.has("track_id") || !s.has("timestamp")) return 0;
  const std::string guid_filter = !guid.empty() && t.has("guid") ? " AND T.guid = :guid" : "";
  sqlite::Stmt q(db, fmt::format(
      "SELECT T.id, json_extract(T.extdata, '$.rpl_device_metric.device'), "
      "json_extract(T.extdata, '$.rpl_device_metric.device_name'), json_extract(T.extdata, '$.rpl_device_metric.metric'), "
      "json_extract(T.extdata, '$.rpl_device_metric.unit'), json_extract(T.extdata, '$.rpl_device_metric.source'), "
      "S.timestamp, json_extract(S.extdata, '$.value') FROM \"{}\" T JOIN \"{}\" S ON S.track_id = T.id "
      "WHERE json_valid(T.extdata) AND json_valid(S.extdata) AND json_extract(T.extdata, '$.rpl_device_metric.metric') "
      "IS NOT NULL{} ORDER BY T.id, S.timestamp",
      t.table(), s.table(), guid_filter));
  if (int index = q.parameter_index(":guid"); index > 0) q.bind(index, std::string_view(guid));
  std::size_t added = 0;
  int64_t current = -1;
  while (q.step()) {
    if (q.i64(0) != current) {
      current = q.i64(0);
      DeviceMetricSeries& series = trace.device_metrics.emplace_back();
      series.device = static_cast<int>(q.i64(1));
      series.device_name = q.text(2);
      series.metric = q.text(3);
      series.unit = q.text(4);
      series.source = q.text(5);
      ++added;
    }
    if (q.type(7) != SQLITE_INTEGER && q.type(7) != SQLITE_FLOAT) continue;  // damaged sample: skipped
    trace.device_metrics.back().times.push_back(q.i64(6));
    trace.device_metrics.back().values.push_back(q.f64(7));
  }
  return added;
}

}  // namespace rpl::rocpd
