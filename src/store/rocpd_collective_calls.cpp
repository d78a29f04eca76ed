#include "store/rocpd_collective_calls.hpp"

#include <fmt/core.h>

#include <charconv>

#include "store/rocpd_input.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {
namespace {

constexpr const char* kCreate = R"sql(
CREATE TABLE IF NOT EXISTS rpl_collective_call (
  id INTEGER PRIMARY KEY, guid TEXT NOT NULL DEFAULT '', pid INTEGER NOT NULL DEFAULT 0,
  comm_id TEXT NOT NULL, comm_size INTEGER NOT NULL, comm_rank INTEGER NOT NULL, comm_nodes INTEGER NOT NULL DEFAULT 0,
  sequence INTEGER NOT NULL, operation TEXT NOT NULL, data_type TEXT NOT NULL DEFAULT '',
  count INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0, root INTEGER NOT NULL DEFAULT -1,
  peer INTEGER NOT NULL DEFAULT -1, algorithm TEXT NOT NULL DEFAULT '', protocol TEXT NOT NULL DEFAULT '',
  channels INTEGER NOT NULL DEFAULT 0, group_id INTEGER NOT NULL DEFAULT 0, stream INTEGER NOT NULL DEFAULT 0,
  start INTEGER NOT NULL DEFAULT 0, "end" INTEGER NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS rpl_gpu_link (
  id INTEGER PRIMARY KEY, guid TEXT NOT NULL DEFAULT '', gpu_uuid TEXT NOT NULL, peer_uuid TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL, links INTEGER NOT NULL DEFAULT 0, gb_per_s REAL NOT NULL DEFAULT 0,
  source TEXT NOT NULL DEFAULT '');
)sql";

std::string hex_id(uint64_t id) { return fmt::format("0x{:016x}", id); }

uint64_t parse_hex_id(std::string_view text, const std::string& path) {
  uint64_t v = 0;
  std::string_view digits = text.starts_with("0x") ? text.substr(2) : text;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty())
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: rpl_collective_call.comm_id '{}' is not a hexadecimal id", path, text));
  return v;
}

bool table_exists(sqlite::Db& db, const char* name) {
  sqlite::Stmt s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind(1, std::string_view(name));
  return s.step();
}

}  // namespace

std::size_t append_collective_calls(const std::string& path, const std::vector<CollectiveCall>& calls,
                                    const std::vector<GpuLink>& links, const std::string& guid) {
  std::unique_ptr<sqlite::Db> opened = open_for_append(path);
  sqlite::Db& db = *opened;
  const std::vector<TableSet> sets = find_table_sets(db);
  const TableSet& set = pick_table_set(sets, guid, path, "collective calls");
  const std::string processes = writable_table(db, set, "info_process", "collective calls");
  db.exec("BEGIN IMMEDIATE");  // rolled back when the connection closes without COMMIT (any exception)
  db.exec(kCreate);
  std::string process_guid = guid;
  int64_t os_pid = 0;
  {
    Columns c(db, processes);
    sqlite::Stmt s(db, fmt::format("SELECT {}, P.pid FROM \"{}\" P ORDER BY P.rowid LIMIT 1", c("P", "guid", "''"), processes));
    if (s.step()) {
      if (process_guid.empty()) process_guid = std::string(s.text(0));
      os_pid = s.i64(1);
    }
  }
  sqlite::Stmt add(db,
                   "INSERT INTO rpl_collective_call (guid, pid, comm_id, comm_size, comm_rank, comm_nodes, sequence, "
                   "operation, data_type, count, bytes, root, peer, algorithm, protocol, channels, group_id, stream, "
                   "start, \"end\", source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const CollectiveCall& c : calls) {
    int i = 1;
    add.bind(i++, std::string_view(process_guid));
    add.bind(i++, os_pid);
    add.bind(i++, std::string_view(hex_id(c.comm_id)));
    add.bind(i++, int64_t{c.comm_size});
    add.bind(i++, int64_t{c.comm_rank});
    add.bind(i++, int64_t{c.comm_nodes});
    add.bind(i++, static_cast<int64_t>(c.sequence));
    add.bind(i++, std::string_view(c.operation));
    add.bind(i++, std::string_view(c.data_type));
    add.bind(i++, static_cast<int64_t>(c.count));
    add.bind(i++, static_cast<int64_t>(c.bytes));
    add.bind(i++, int64_t{c.root});
    add.bind(i++, int64_t{c.peer});
    add.bind(i++, std::string_view(c.algorithm));
    add.bind(i++, std::string_view(c.protocol));
    add.bind(i++, int64_t{c.channels});
    add.bind(i++, static_cast<int64_t>(c.group));
    add.bind(i++, static_cast<int64_t>(c.stream));
    add.bind(i++, c.start);
    add.bind(i++, c.end);
    add.bind(i++, std::string_view(c.source));
    add.run();
  }
  sqlite::Stmt link(db, "INSERT INTO rpl_gpu_link (guid, gpu_uuid, peer_uuid, kind, links, gb_per_s, source) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const GpuLink& l : links) {
    link.bind(1, std::string_view(process_guid));
    link.bind(2, std::string_view(l.gpu_uuid));
    link.bind(3, std::string_view(l.peer_uuid));
    link.bind(4, std::string_view(l.kind));
    link.bind(5, int64_t{l.links});
    link.bind(6, l.gb_per_s);
    link.bind(7, std::string_view(l.source));
    link.run();
  }
  db.exec("COMMIT");
  return calls.size();
}

std::size_t count_collective_calls(const std::string& path) {
  sqlite::Db db(path, SQLITE_OPEN_READONLY, path, sqlite::kReading);
  if (!table_exists(db, "rpl_collective_call")) return 0;
  return static_cast<std::size_t>(sqlite::query_int(db, "SELECT COUNT(*) FROM rpl_collective_call"));
}

void read_collective_calls(Trace& trace, sqlite::Db& db, const std::string& guid, Index process) {
  if (table_exists(db, "rpl_collective_call")) {
    sqlite::Stmt q(db,
                   "SELECT comm_id, comm_size, comm_rank, comm_nodes, sequence, operation, data_type, count, bytes, root, "
                   "peer, algorithm, protocol, channels, group_id, stream, start, \"end\", source FROM rpl_collective_call "
                   "WHERE ? = '' OR guid = ? OR guid = '' ORDER BY start, id");
    q.bind(1, std::string_view(guid));
    q.bind(2, std::string_view(guid));
    while (q.step()) {
      CollectiveCall c;
      c.process = process;
      c.comm_id = parse_hex_id(q.text(0), db.path());
      c.comm_size = static_cast<int32_t>(q.i64(1));
      c.comm_rank = static_cast<int32_t>(q.i64(2));
      c.comm_nodes = static_cast<int32_t>(q.i64(3));
      c.sequence = static_cast<uint64_t>(q.i64(4));
      c.operation = q.text(5);
      c.data_type = q.text(6);
      c.count = static_cast<uint64_t>(q.i64(7));
      c.bytes = static_cast<uint64_t>(q.i64(8));
      c.root = static_cast<int32_t>(q.i64(9));
      c.peer = static_cast<int32_t>(q.i64(10));
      c.algorithm = q.text(11);
      c.protocol = q.text(12);
      c.channels = static_cast<uint32_t>(q.i64(13));
      c.group = static_cast<uint64_t>(q.i64(14));
      c.stream = static_cast<uint64_t>(q.i64(15));
      c.start = q.i64(16);
      c.end = q.i64(17);
      c.source = q.text(18);
      if (c.comm_size <= 0 || c.comm_rank < 0 || c.comm_rank >= c.comm_size)
        throw Error(ExitCode::InputCorrupt,
                    fmt::format("{}: collective call #{} on communicator {} has rank {} of {} (not a rank of it)",
                                db.path(), c.sequence, hex_id(c.comm_id), c.comm_rank, c.comm_size));
      trace.collective_calls.push_back(std::move(c));
    }
  }
  if (table_exists(db, "rpl_gpu_link")) {
    sqlite::Stmt q(db, "SELECT gpu_uuid, peer_uuid, kind, links, gb_per_s, source FROM rpl_gpu_link "
                       "WHERE ? = '' OR guid = ? OR guid = '' ORDER BY id");
    q.bind(1, std::string_view(guid));
    q.bind(2, std::string_view(guid));
    while (q.step()) {
      GpuLink l;
      l.process = process;
      l.gpu_uuid = q.text(0);
      l.peer_uuid = q.text(1);
      l.kind = q.text(2);
      l.links = static_cast<uint32_t>(q.i64(3));
      l.gb_per_s = q.f64(4);
      l.source = q.text(5);
      trace.gpu_links.push_back(std::move(l));
    }
  }
}

}  // namespace rpl::rocpd
