#pragma once
// Opening a rocpd database for reading: the checks that give each kind of bad input its own exit code,
// and finding the table sets (one per uuid suffix) inside the file.
#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "store/sqlite_db.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {

// Throws InputMissing (no such file, a directory, unreadable) or InputCorrupt (not an SQLite file, or
// shorter than its header says: truncated) without opening the database.
void check_input_file(const std::string& path);

// Opens read-only (immutable when no WAL file is beside it). Errors name `path`.
std::unique_ptr<sqlite::Db> open_readonly(const std::string& path);

// One process's tables: rocpd_<base><suffix>, e.g. suffix "_0198a0b1_2c3d_..." or "" for the
// un-suffixed fallback.
struct TableSet {
  std::string suffix;
  std::vector<std::pair<std::string, std::string>> tables;  // base name ("kernel_dispatch") -> full name

  // The full name of a base table, or empty when the set has none.
  const std::string& table(std::string_view base) const;
  bool has(std::string_view base) const { return !table(base).empty(); }
};

// Every suffix found by name (rocpd_<name>_<uuid> tables) or named by a rocpd_metadata 'uuid' row, with
// the tables it has; sets without kernel_dispatch and memory_copy are dropped. When no suffixed set
// exists, the un-suffixed rocpd_<name> tables or views form one set. Throws InputNotRocpd when neither
// exists.
std::vector<TableSet> find_table_sets(sqlite::Db& db);

// Opens an existing rocpd database to add rows (rocpd_counters_append, rocpd_device_metrics): InputMissing /
// InputCorrupt for the file as open_readonly, OutputFailed when it cannot be written; waits up to 5 s for a lock.
std::unique_ptr<sqlite::Db> open_for_append(const std::string& path);

// The table set of process `guid` (empty: the file must hold exactly one process). Throws Usage naming the
// file otherwise; `what` says what is being added ("counters").
const TableSet& pick_table_set(const std::vector<TableSet>& sets, const std::string& guid, const std::string& path,
                               std::string_view what);

// The real table behind a base name, for adding rows (a view cannot take them). Throws InputNotRocpd
// "<file>: no rocpd_<base> table to add <what> to" when there is none.
std::string writable_table(sqlite::Db& db, const TableSet& set, std::string_view base, std::string_view what);

// The column names of a table or view (PRAGMA table_info).
std::vector<std::string> table_columns(sqlite::Db& db, const std::string& table);

// The columns one table has, so that optional columns become NULL in the SELECT and schema
// variants (extra columns of 3.0.2+) are simply never read.
class Columns {
 public:
  Columns() = default;
  Columns(sqlite::Db& db, const std::string& table) : table_(table), names_(table_columns(db, table)) {}
  bool exists() const { return !table_.empty(); }
  bool has(std::string_view column) const { return std::find(names_.begin(), names_.end(), column) != names_.end(); }
  // The column's position in the table (its place in each stored record), -1 when it has none.
  int index(std::string_view column) const {
    auto it = std::find(names_.begin(), names_.end(), column);
    return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
  }
  // "alias.column" when it exists, else `fallback`.
  std::string operator()(std::string_view alias, std::string_view column, std::string_view fallback = "NULL") const {
    if (!has(column)) return std::string(fallback);
    return fmt::format("{}.\"{}\"", alias, column);
  }
  void require(const sqlite::Db& db, std::initializer_list<std::string_view> columns) const {
    for (auto c : columns)
      if (!has(c))
        throw Error(ExitCode::InputNotRocpd,
                    fmt::format("{}: table {} has no column \"{}\" (not a rocpd 3.x schema)", db.path(), table_, c));
  }
  const std::string& table() const { return table_; }

 private:
  std::string table_;
  std::vector<std::string> names_;
};

}  // namespace rpl::rocpd
