#pragma once
// Opening a rocpd database for reading: the checks that give each kind of bad input its own exit code,
// and finding the table sets (one per uuid suffix) inside the file.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite_db.hpp"

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

// The column names of a table or view (PRAGMA table_info).
std::vector<std::string> table_columns(sqlite::Db& db, const std::string& table);

}  // namespace rpl::rocpd
