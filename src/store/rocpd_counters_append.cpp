// append_counters: counter values measured in another run added to an existing rocpd database, in one
// transaction.
#include <fmt/core.h>

#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "store/rocpd_counters_append.hpp"
#include "store/rocpd_input.hpp"
#include "store/rocpd_schema.hpp"
#include "store/sqlite_db.hpp"

namespace rpl::rocpd {
namespace {

struct DispatchTarget {
  int64_t event_id = 0;
  bool has_event = false;
  int64_t agent_id = 0, nid = 0, pid = 0;
  std::string guid;
};

std::string block_of(std::string_view counter) {
  return std::string(counter.substr(0, counter.find('_')));
}

}  // namespace

AppendCountersResult append_counters(const std::string& path, std::span<const CounterValue> values,
                                     const std::string& guid) {
  std::unique_ptr<sqlite::Db> opened = open_for_append(path);
  sqlite::Db& db = *opened;
  const std::vector<TableSet> sets = find_table_sets(db);
  const TableSet& set = pick_table_set(sets, guid, path, "counters");
  const std::string dispatch_table = writable_table(db, set, "kernel_dispatch", "counter values");
  const std::string info_table = writable_table(db, set, "info_pmc", "counter values");
  const std::string event_table = writable_table(db, set, "pmc_event", "counter values");
  Columns k(db, dispatch_table);
  k.require(db, {"dispatch_id", "agent_id", "event_id", "nid", "pid"});
  const bool has_guid = k.has("guid");

  db.exec("BEGIN IMMEDIATE");  // rolled back when the connection closes without COMMIT (any exception)

  // The dispatches the values name: their event (to attach to), agent, node and process.
  std::unordered_set<int64_t> wanted;
  for (const CounterValue& v : values) {
    if (!std::isfinite(v.value) || v.counter.empty())
      throw Error(ExitCode::InputInvalid, fmt::format("{}: counter '{}' of dispatch {} has no finite value ({})", path,
                                                      v.counter, v.dispatch_id, v.value));
    wanted.insert(v.dispatch_id);
  }
  std::unordered_map<int64_t, DispatchTarget> targets;
  {
    sqlite::Stmt s(db, fmt::format("SELECT dispatch_id, event_id, agent_id, nid, pid, {} FROM \"{}\"{}",
                                   has_guid ? "guid" : "NULL", dispatch_table,
                                   has_guid && !guid.empty() ? " WHERE guid = :guid" : ""));
    if (int index = s.parameter_index(":guid"); index > 0) s.bind(index, std::string_view(guid));
    while (s.step()) {
      if (!wanted.count(s.i64(0))) continue;
      DispatchTarget& t = targets[s.i64(0)];
      t.has_event = !s.is_null(1);
      t.event_id = s.i64(1);
      t.agent_id = s.i64(2);
      t.nid = s.i64(3);
      t.pid = s.i64(4);
      t.guid = s.text(5);
    }
  }
  for (int64_t id : wanted) {
    auto it = targets.find(id);
    if (it == targets.end())
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: no dispatch with id {} to attach counter values to", path, id));
    if (!it->second.has_event)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: dispatch {} has no event id to attach counter values to", path, id));
  }

  // Counter ids already registered, by (agent, name).
  std::map<std::pair<int64_t, std::string>, int64_t> pmc_ids;
  {
    sqlite::Stmt s(db, fmt::format("SELECT id, agent_id, name FROM \"{}\" WHERE name IS NOT NULL", info_table));
    while (s.step()) pmc_ids.try_emplace({s.i64(1), std::string(s.text(2))}, s.i64(0));
  }

  AppendCountersResult result;
  sqlite::Stmt add_info(db, fmt::format("INSERT INTO \"{}\" ({}nid, pid, agent_id, target_arch, name, symbol, "
                                        "description, component, value_type, block, expression, is_constant, "
                                        "is_derived) VALUES ({}?, ?, ?, 'GPU', ?, ?, '', 'rocm', 'ABS', ?, '', 0, 0)",
                                        info_table, has_guid ? "guid, " : "", has_guid ? "?, " : ""));
  sqlite::Stmt add_value(db, fmt::format("INSERT INTO \"{}\" ({}event_id, pmc_id, value) VALUES ({}?, ?, ?)",
                                         event_table, has_guid ? "guid, " : "", has_guid ? "?, " : ""));
  for (const CounterValue& v : values) {
    const DispatchTarget& t = targets.at(v.dispatch_id);
    auto [it, added] = pmc_ids.try_emplace({t.agent_id, v.counter}, 0);
    if (added) {
      int i = 1;
      if (has_guid) add_info.bind(i++, std::string_view(t.guid));
      add_info.bind(i++, t.nid);
      add_info.bind(i++, t.pid);
      add_info.bind(i++, t.agent_id);
      add_info.bind(i++, std::string_view(v.counter));
      add_info.bind(i++, std::string_view(v.counter));
      add_info.bind(i++, std::string_view(block_of(v.counter)));
      add_info.run();
      it->second = sqlite3_last_insert_rowid(db.handle());
      ++result.counters_added;
    }
    int i = 1;
    if (has_guid) add_value.bind(i++, std::string_view(t.guid));
    add_value.bind(i++, t.event_id);
    add_value.bind(i++, it->second);
    add_value.bind(i++, v.value);
    add_value.run();
    ++result.values_written;
  }
  db.exec("COMMIT");
  return result;
}

}  // namespace rpl::rocpd
