#include "store/rocpd_scratch_memory.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "store/rocpd_input.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {
namespace {

bool parse_kind(std::string_view type, ScratchOperation::Kind& kind) {
  for (auto k : {ScratchOperation::Kind::Alloc, ScratchOperation::Kind::Free, ScratchOperation::Kind::Realloc,
                 ScratchOperation::Kind::Reclaim})
    if (type == to_string(k)) {
      kind = k;
      return true;
    }
  return false;
}

// "LEFT JOIN table X ON X.id = M.column [AND X.guid = M.guid]": the ids of one table set's tables; the guid
// too when both carry one (the un-suffixed views merge processes).
std::string join(const Columns& m, const TableSet& set, sqlite::Db& db, std::string_view base, const char* alias,
                 const char* column) {
  const std::string& table = set.table(base);
  if (table.empty() || !m.has(column)) return {};
  Columns x(db, table);
  std::string on = fmt::format("{}.id = M.\"{}\"", alias, column);
  if (x.has("guid") && m.has("guid")) on += fmt::format(" AND {}.guid = M.guid", alias);
  return fmt::format(" LEFT JOIN \"{}\" {} ON {}", table, alias, on);
}

void read_set(sqlite::Db& db, const TableSet& set, std::vector<ScratchOperation>& out) {
  const std::string& table = set.table("memory_allocate");
  if (table.empty()) return;
  Columns m(db, table);
  m.require(db, {"id", "type", "level", "start", "end", "size"});
  const std::string agents = join(m, set, db, "info_agent", "A", "agent_id");
  const std::string threads = join(m, set, db, "info_thread", "T", "tid");
  const std::string processes = join(m, set, db, "info_process", "P", "pid");
  const std::string sql = fmt::format(
      "SELECT M.id, M.type, M.start, M.\"end\", M.size, {}, {}, {}, {}, {}, {}, {} FROM \"{}\" M{}{}{} "
      "WHERE M.level = 'SCRATCH' ORDER BY M.start, M.id",
      m("M", "address", "0"), m("M", "queue_id"), threads.empty() ? "NULL" : "T.tid",
      agents.empty() ? "NULL" : "A.name", agents.empty() ? "NULL" : "A.logical_index",
      processes.empty() ? "NULL" : "P.pid", m.has("extdata") ? "JSON_EXTRACT(M.extdata, '$.flags')" : "NULL", table,
      agents, threads, processes);
  sqlite::Stmt s(db, sql);
  while (s.step()) {
    ScratchOperation op;
    const int64_t id = s.i64(0);
    if (!parse_kind(s.text(1), op.kind))
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: {} row {} has type '{}' (ALLOC, FREE, REALLOC or RECLAIM expected)", db.path(),
                              table, id, s.text(1)));
    op.start = s.i64(2);
    op.end = s.i64(3);
    if (op.end < op.start)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: {} row {} ends before it starts ({} < {})", db.path(), table, id, op.end, op.start));
    if (s.i64(4) < 0)
      throw Error(ExitCode::InputInvalid, fmt::format("{}: {} row {} has a negative size", db.path(), table, id));
    op.size = static_cast<uint64_t>(s.i64(4));
    op.address = static_cast<uint64_t>(s.i64(5));
    op.queue_id = s.is_null(6) ? -1 : s.i64(6);
    op.tid = s.is_null(7) ? 0 : static_cast<uint64_t>(s.i64(7));
    op.agent = s.is_null(8) ? std::string() : std::string(s.text(8));
    op.agent_index = s.is_null(9) ? -1 : s.i64(9);
    op.pid = s.is_null(10) ? 0 : s.i64(10);
    op.flags = s.is_null(11) ? 0 : static_cast<uint64_t>(s.i64(11));
    out.push_back(std::move(op));
  }
}

}  // namespace

std::vector<ScratchOperation> read_scratch_memory(const std::string& path) {
  check_input_file(path);
  std::unique_ptr<sqlite::Db> db = open_readonly(path);
  std::vector<ScratchOperation> out;
  for (const TableSet& set : find_table_sets(*db)) read_set(*db, set, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const ScratchOperation& a, const ScratchOperation& b) { return a.start < b.start; });
  return out;
}

}  // namespace rpl::rocpd
