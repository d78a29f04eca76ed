#pragma once
// A thin RAII layer over the SQLite C API: one connection (Db) and its prepared statements (Stmt).
// Every failing call throws rpl::Error naming the database file; which ExitCode depends on whether
// the file is being read (a damaged input) or written (an output failure).
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "support/errors.hpp"

namespace rpl::sqlite {

// How SQLite failures map to exit codes for one connection.
struct ErrorCodes {
  ExitCode damaged;  // SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR, SQLITE_FORMAT
  ExitCode other;    // everything else
};
inline constexpr ErrorCodes kReading{ExitCode::InputCorrupt, ExitCode::Internal};
inline constexpr ErrorCodes kWriting{ExitCode::OutputFailed, ExitCode::OutputFailed};

class Db {
 public:
  // `target` is what sqlite3_open_v2 gets (a path, or a file: URI with SQLITE_OPEN_URI);
  // `display_path` is what messages name.
  Db(const std::string& target, int flags, std::string display_path, ErrorCodes codes);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

  // Runs one or more statements that return no rows of interest.
  void exec(const std::string& sql);
  // Closes the connection now (the destructor does the same, ignoring errors).
  void close();

  [[noreturn]] void fail(int rc, std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  ErrorCodes codes_;
};

class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Advances to the next row; false when done.
  bool step();
  // Runs a statement that returns no rows, then resets it for the next use (bindings are kept).
  void run();
  void reset();

  void bind(int index, int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view text);  // copied by SQLite (SQLITE_TRANSIENT)
  void bind_null(int index);
  // The index of a named parameter (":name"), 0 when the statement has none of that name.
  int parameter_index(const char* name) const { return sqlite3_bind_parameter_index(stmt_, name); }
  // Text that stays valid until the statement is stepped again (no copy).
  void bind_static(int index, std::string_view text);

  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int type(int col) const { return sqlite3_column_type(stmt_, col); }
  int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double f64(int col) const { return sqlite3_column_double(stmt_, col); }
  // Valid until the next step/reset.
  std::string_view text(int col) const;

  // One column of the current row for loops over millions of rows: type and integer from one column lookup
  // (sqlite3_column_type + sqlite3_column_int64 look the column up twice). Valid until the next step; the
  // handle is SQLite's unprotected value, which is fine on the connection's own thread (SQLite's docs).
  class Cell {
   public:
    explicit Cell(sqlite3_value* v) : v_(v) {}
    int type() const { return sqlite3_value_type(v_); }
    bool is_null() const { return type() == SQLITE_NULL; }
    int64_t i64() const { return sqlite3_value_int64(v_); }  // as sqlite3_column_int64 converts

   private:
    sqlite3_value* v_;
  };
  Cell cell(int col) const { return Cell(sqlite3_column_value(stmt_, col)); }

 private:
  void check_bind(int rc, int index);

  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Runs a query that returns one integer (0 when it returns no row or NULL).
int64_t query_int(Db& db, const std::string& sql);

}  // namespace rpl::sqlite
