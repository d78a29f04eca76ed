#include "store/rocpd_input.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "store/rocpd_schema.hpp"
#include "store/uuid.hpp"
#include "support/errors.hpp"

namespace rpl::rocpd {

namespace fs = std::filesystem;

namespace {

uint32_t big_endian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// SQLite URIs treat '?', '#' and '%' specially; encode everything outside a safe set.
std::string file_uri(const std::string& path, std::string_view query) {
  std::string absolute = fs::absolute(path).lexically_normal().string();
  std::string uri = "file:";
  for (unsigned char c : absolute) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~')
      uri += static_cast<char>(c);
    else
      uri += fmt::format("%{:02X}", c);
  }
  uri += '?';
  uri += query;
  return uri;
}

// ROCm 6.x's rocprofv3 writes JSON or CSV instead of rocpd: such a file given as a database gets the command that
// converts it (the first bytes: the JSON's top-level key, or a CSV header rocprofv3 writes).
std::string rocprofv3_text_output_hint(const unsigned char* head, std::size_t n) {
  const std::string_view text(reinterpret_cast<const char*>(head), n);
  if (text.find("\"rocprofiler-sdk-tool\"") != std::string_view::npos)
    return ": it is rocprofv3's JSON output (ROCm 6.x); convert it with rocm-perf import rocprofv3-json FILE";
  for (const char* header : {"\"Kind\",", "\"Domain\",", "\"Node_Id\","})
    if (text.rfind(header, 0) == 0)
      return ": it is rocprofv3's CSV output (ROCm 6.x); convert its folder with rocm-perf import rocprofv3-csv DIR";
  return "";
}

const std::string kEmpty;
// How long a reader waits for a writer's lock before it gives up with a message.
constexpr int kBusyTimeoutMs = 2000;

}  // namespace

const std::string& TableSet::table(std::string_view base) const {
  for (const auto& [b, full] : tables)
    if (b == base) return full;
  return kEmpty;
}

void check_input_file(const std::string& path) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (!fs::exists(status)) throw Error(ExitCode::InputMissing, fmt::format("{}: no such file", path));
  if (fs::is_directory(status))
    throw Error(ExitCode::InputMissing, fmt::format("{}: is a directory, not a rocpd database file", path));

  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("{}: cannot be read: {}", path, std::strerror(errno)));
  uintmax_t size = fs::file_size(path, ec);
  if (ec) throw Error(ExitCode::InputMissing, fmt::format("{}: cannot be read: {}", path, ec.message()));
  if (size == 0) throw Error(ExitCode::InputCorrupt, fmt::format("{}: empty file (0 bytes), not an SQLite database", path));

  unsigned char header[100] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  static constexpr char kMagic[16] = "SQLite format 3";  // includes the trailing NUL
  if (in.gcount() < 100 || std::memcmp(header, kMagic, 16) != 0)
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: not an SQLite database (bad file header){}", path,
                                                    rocprofv3_text_output_hint(header, static_cast<std::size_t>(in.gcount()))));

  // The header records the page size and, when "version-valid-for" matches the change counter, the
  // database size in pages: a file shorter than that was truncated.
  uint32_t page_size = big_endian(header + 16, 2);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0)
    throw Error(ExitCode::InputCorrupt, fmt::format("{}: damaged SQLite header (page size {})", path, page_size));
  uint32_t change_counter = big_endian(header + 24, 4);
  uint32_t page_count = big_endian(header + 28, 4);
  uint32_t valid_for = big_endian(header + 92, 4);
  uintmax_t expected = uintmax_t{page_count} * page_size;
  if (page_count != 0 && valid_for == change_counter && size < expected)
    throw Error(ExitCode::InputCorrupt,
                fmt::format("{}: truncated SQLite database: {} bytes, but its header says {} pages of {} bytes "
                            "({} bytes)",
                            path, size, page_count, page_size, expected));
}

std::unique_ptr<sqlite::Db> open_readonly(const std::string& path) {
  // Read-only and with locking, so that a live writer's uncommitted pages and a hot journal are never
  // read: SQLite takes a shared lock (or a WAL read mark), waits up to the busy timeout, then fails.
  // A read-only connection never creates a rollback journal. In WAL mode it would create "-shm" (and
  // "-wal") beside the input; where no "-wal" exists, no writer is connected (a WAL writer keeps the file
  // while it is connected), every committed page is in the main file, and immutable=1 reads it
  // without creating files.
  std::error_code ec;
  bool has_wal_file = fs::exists(path + "-wal", ec);
  bool wal_mode = false;
  if (std::ifstream in(path, std::ios::binary); in) {
    unsigned char header[20] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    wal_mode = in.gcount() == sizeof header && header[18] == 2 && header[19] == 2;
  }
  std::string uri = file_uri(path, wal_mode && !has_wal_file ? "immutable=1" : "mode=ro");
  auto db = std::make_unique<sqlite::Db>(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, path,
                                         sqlite::kReading);
  sqlite3_busy_timeout(db->handle(), kBusyTimeoutMs);
  return db;
}

std::vector<std::string> table_columns(sqlite::Db& db, const std::string& table) {
  sqlite::Stmt s(db, fmt::format("PRAGMA table_info(\"{}\")", table));
  std::vector<std::string> columns;
  while (s.step()) columns.emplace_back(s.text(1));
  return columns;
}

std::vector<TableSet> find_table_sets(sqlite::Db& db) {
  std::set<std::string> tables, views;
  {
    sqlite::Stmt s(db, "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') AND name LIKE 'rocpd%'");
    while (s.step()) (s.text(1) == "table" ? tables : views).emplace(s.text(0));
  }

  // Suffixes: "_<uuid with _>" at the end of any rocpd table name ...
  std::set<std::string> suffixes;
  for (const std::string& name : tables) {
    if (name.size() < 6 + 1 + 36 + 1) continue;
    std::string_view tail = std::string_view(name).substr(name.size() - 37);
    if (tail[0] == '_' && is_uuid_suffix(tail.substr(1))) suffixes.emplace(tail);
  }
  // ... and whatever rocpd_metadata names as 'uuid' (covers suffixes of another shape).
  if (tables.count("rocpd_metadata") || views.count("rocpd_metadata")) {
    sqlite::Stmt s(db, "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'");
    while (s.step())
      if (!s.is_null(0) && !s.text(0).empty()) suffixes.emplace(s.text(0));
  }
  for (const std::string& name : tables) {
    if (!name.starts_with("rocpd_metadata_") || name.size() <= 15) continue;
    std::string suffix = name.substr(14);  // "_<...>"
    if (suffixes.count(suffix)) continue;
    sqlite::Stmt s(db, fmt::format("SELECT value FROM \"{}\" WHERE tag = 'uuid'", name));
    while (s.step())
      if (!s.is_null(0) && s.text(0) == suffix) suffixes.emplace(suffix);
  }

  std::vector<std::string_view> bases(schema::table_names().begin(), schema::table_names().end());
  auto make_set = [&](const std::string& suffix, bool allow_views) {
    TableSet set;
    set.suffix = suffix;
    for (auto base : bases) {
      std::string full = fmt::format("rocpd_{}{}", base, suffix);
      if (tables.count(full) || (allow_views && views.count(full))) set.tables.emplace_back(base, full);
    }
    return set;
  };

  std::vector<TableSet> sets;
  for (const std::string& suffix : suffixes) {
    TableSet set = make_set(suffix, false);
    if (set.has("kernel_dispatch") || set.has("memory_copy")) sets.push_back(std::move(set));
  }
  if (sets.empty()) {
    TableSet set = make_set("", true);
    if (set.has("kernel_dispatch") || set.has("memory_copy")) sets.push_back(std::move(set));
  }
  if (sets.empty())
    throw Error(ExitCode::InputNotRocpd,
                fmt::format("{}: an SQLite database, but not a rocpd trace (no rocpd_kernel_dispatch or "
                            "rocpd_memory_copy table)",
                            db.path()));
  return sets;
}

std::unique_ptr<sqlite::Db> open_for_append(const std::string& path) {
  check_input_file(path);
  auto db = std::make_unique<sqlite::Db>(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, path,
                                         sqlite::ErrorCodes{ExitCode::InputCorrupt, ExitCode::OutputFailed});
  db->exec("PRAGMA busy_timeout = 5000");
  return db;
}

const TableSet& pick_table_set(const std::vector<TableSet>& sets, const std::string& guid, const std::string& path,
                               std::string_view what) {
  if (!guid.empty()) {
    const std::string suffix = schema::table_suffix(guid);
    for (const TableSet& s : sets)
      if (s.suffix == suffix) return s;
    throw Error(ExitCode::Usage, fmt::format("{}: holds no process with guid {}", path, guid));
  }
  if (sets.size() != 1)
    throw Error(ExitCode::Usage,
                fmt::format("{}: holds {} processes; say which one the {} belong to (guid)", path, sets.size(), what));
  return sets.front();
}

std::string writable_table(sqlite::Db& db, const TableSet& set, std::string_view base, std::string_view what) {
  const std::string& name = set.table(base);
  if (!name.empty()) {
    sqlite::Stmt s(db, "SELECT type FROM sqlite_master WHERE name = ?");
    s.bind(1, std::string_view(name));
    if (s.step() && s.text(0) == "table") return name;
  }
  throw Error(ExitCode::InputNotRocpd, fmt::format("{}: no rocpd_{} table to add {} to", db.path(), base, what));
}

}  // namespace rpl::rocpd
