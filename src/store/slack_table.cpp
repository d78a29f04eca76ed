#include "store/slack_table.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <system_error>
#include <unistd.h>

#include "store/batch_insert.hpp"
#include "store/sqlite_db.hpp"

namespace rpl::store {
// Only a file this writer made may be replaced: a trace given by mistake must survive.
void check_slack_table_path(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  bool ours = false;
  try {
    sqlite::Db db(path, SQLITE_OPEN_READONLY, path, sqlite::kReading);
    ours = sqlite::query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'rpl_node_slack_info'") == 1 &&
           sqlite::query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'rpl_node_slack%'") == 0;
  } catch (const Error&) {
    ours = false;
  }
  if (!ours)
    throw Error(ExitCode::Usage,
                fmt::format("--slack-db {}: the file exists and is not a --slack-db output; not replacing it", path));
}

void write_slack_table(const std::string& path, const SlackTable& table) {
  check_slack_table_path(path);
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::filesystem::remove(tmp);
  try {
    sqlite::Db db(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, path, sqlite::kWriting);
    // A fresh private file renamed into place when complete: no journal is needed for safety.
    db.exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN;");
    db.exec(
        "CREATE TABLE rpl_node_slack_info(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE rpl_node_slack_names(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
        "CREATE TABLE rpl_node_slack(kind INTEGER NOT NULL, name INTEGER NOT NULL, process INTEGER NOT NULL,"
        " id INTEGER NOT NULL, stream INTEGER NOT NULL, start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL,"
        " earliest_start_ns INTEGER NOT NULL, slack_ns INTEGER NOT NULL, on_critical_path INTEGER NOT NULL);"
        "CREATE VIEW rpl_node_slack_named AS SELECT CASE r.kind WHEN 0 THEN 'dispatch' ELSE 'copy' END AS kind,"
        " n.name AS name, r.process, r.id, r.stream, r.start_ns, r.duration_ns, r.earliest_start_ns, r.slack_ns,"
        " r.on_critical_path FROM rpl_node_slack r JOIN rpl_node_slack_names n ON n.id = r.name;");
    {
      sqlite::Stmt info(db, "INSERT INTO rpl_node_slack_info(key, value) VALUES (?, ?)");
      auto put = [&](std::string_view key, std::string_view value) {
        info.bind(1, key);
        info.bind(2, value);
        info.run();
      };
      put("schema_version", kSlackTableSchemaVersion);
      put("rows", std::to_string(table.rows));
      for (std::size_t i = 0; i < table.inputs.size(); ++i) put(fmt::format("input_{}", i), table.inputs[i]);
      sqlite::Stmt name(db, "INSERT INTO rpl_node_slack_names(id, name) VALUES (?, ?)");
      for (std::size_t i = 0; i < table.names.size(); ++i) {
        name.bind(1, static_cast<int64_t>(i));
        name.bind(2, std::string_view(table.names[i]));
        name.run();
      }
    }
    {
    sqlite::BatchInsert rows(db, "rpl_node_slack",
                             "kind, name, process, id, stream, start_ns, duration_ns, earliest_start_ns, slack_ns, on_critical_path",
                             10);
    for (std::size_t i = 0; i < table.rows; ++i) {
      const NodeSlackRow r = table.row(i);
      rows.add(r.kind).add(r.name).add(r.process).add(r.id).add(r.stream).add(r.start_ns).add(r.duration_ns)
          .add(r.earliest_start_ns).add(r.slack_ns).add(r.on_critical_path);
      rows.end_row();
    }
    rows.flush();
    }
    db.exec("COMMIT;");
    db.close();
  } catch (...) {
    std::filesystem::remove(tmp);
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error(ExitCode::OutputFailed, fmt::format("--slack-db {}: cannot rename {} into place: {}", path, tmp, ec.message()));
  }
}

}  // namespace rpl::store
