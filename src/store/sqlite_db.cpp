#include "store/sqlite_db.hpp"

#include <fmt/core.h>

namespace rpl::sqlite {

namespace {

bool is_damage(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_IOERR:
    case SQLITE_FORMAT:
      return true;
    default:
      return false;
  }
}

}  // namespace

Db::Db(const std::string& target, int flags, std::string display_path, ErrorCodes codes)
    : path_(std::move(display_path)), codes_(codes) {
  int rc = sqlite3_open_v2(target.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    ExitCode code = is_damage(rc) ? codes_.damaged : codes_.other;
    if ((rc & 0xff) == SQLITE_CANTOPEN && codes_.damaged == ExitCode::InputCorrupt) code = ExitCode::InputMissing;
    throw Error(code, fmt::format("{}: cannot open as SQLite database: {}", path_, message));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() { sqlite3_close_v2(db_); }

void Db::close() {
  if (!db_) return;
  int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) fail(rc, "closing the database");
  db_ = nullptr;
}

void Db::fail(int rc, std::string_view what) const {
  std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  if (is_damage(rc)) {
    const char* hint = codes_.damaged == ExitCode::InputCorrupt ? " (truncated or damaged database?)" : "";
    throw Error(codes_.damaged, fmt::format("{}: {}: {}{}", path_, what, detail, hint));
  }
  // Reading: a file that another process holds locked, or that needs a rollback a read-only reader
  // cannot do, is an input that cannot be read now (exit 3), with the reason.
  if (codes_.damaged == ExitCode::InputCorrupt) {
    switch (rc & 0xff) {
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        throw Error(ExitCode::InputMissing,
                    fmt::format("{}: cannot be read: another process holds it locked (a profiler still writing?); "
                                "gave up after waiting: {}",
                                path_, detail));
      case SQLITE_READONLY:
      case SQLITE_CANTOPEN:
        throw Error(ExitCode::InputMissing,
                    fmt::format("{}: cannot be read: {}{}", path_, detail,
                                rc == SQLITE_READONLY_ROLLBACK
                                    ? " (a hot journal: a writer died mid-transaction; open the file once with "
                                      "write access, e.g. `sqlite3 FILE 'PRAGMA quick_check'`, to roll it back)"
                                    : ""));
      default:
        break;
    }
  }
  throw Error(codes_.other, fmt::format("{}: {}: {}", path_, what, detail));
}

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    sqlite3_free(err);  // the same text is available from sqlite3_errmsg
    std::string head = sql.substr(0, 60);
    for (char& c : head)
      if (c == '\n') c = ' ';
    fail(rc, fmt::format("executing \"{}...\"", head));
  }
}

Stmt::Stmt(Db& db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                              &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, fmt::format("preparing \"{}\"", sql.substr(0, 80)));
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

bool Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(rc, fmt::format("running \"{:.80}\"", sqlite3_sql(stmt_)));
}

void Stmt::run() {
  while (step()) {
  }
  sqlite3_reset(stmt_);
}

void Stmt::reset() { sqlite3_reset(stmt_); }

void Stmt::check_bind(int rc, int index) {
  if (rc != SQLITE_OK) db_.fail(rc, fmt::format("binding parameter {} of \"{:.80}\"", index, sqlite3_sql(stmt_)));
}

void Stmt::bind(int index, int64_t value) { check_bind(sqlite3_bind_int64(stmt_, index, value), index); }
void Stmt::bind(int index, double value) { check_bind(sqlite3_bind_double(stmt_, index, value), index); }
void Stmt::bind(int index, std::string_view text) {
  check_bind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
}
void Stmt::bind_static(int index, std::string_view text) {
  check_bind(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8), index);
}
void Stmt::bind_null(int index) { check_bind(sqlite3_bind_null(stmt_, index), index); }

std::string_view Stmt::text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))};
}

int64_t query_int(Db& db, const std::string& sql) {
  Stmt s(db, sql);
  if (!s.step() || s.is_null(0)) return 0;
  return s.i64(0);
}

}  // namespace rpl::sqlite
