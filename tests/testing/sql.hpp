#pragma once
// Plain SQL against a database file, for tests that build or inspect rocpd files by hand.
#include <sqlite3.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace rpl::test {

class SqlFile {
 public:
  explicit SqlFile(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("cannot open " + path);
    exec("PRAGMA synchronous = OFF");  // test files need no durability; fsync per statement is slow
  }
  ~SqlFile() { sqlite3_close(db_); }
  SqlFile(const SqlFile&) = delete;
  SqlFile& operator=(const SqlFile&) = delete;

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string message = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error(message + " in: " + sql.substr(0, 200));
    }
  }
  // All rows, every value as text ("NULL" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string(sqlite3_errmsg(db_)) + " in: " + sql);
    std::vector<std::vector<std::string>> out;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      auto& row = out.emplace_back();
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
        row.emplace_back(text ? text : "NULL");
      }
    }
    std::string error = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    if (!error.empty()) throw std::runtime_error(error + " in: " + sql);
    return out;
  }
  std::string value(const std::string& sql) {
    auto r = rows(sql);
    if (r.empty() || r[0].empty()) throw std::runtime_error("no row from: " + sql);
    return r[0][0];
  }
  double number(const std::string& sql) { return std::stod(value(sql)); }
  std::vector<std::string> column_names(const std::string& table) {
    std::vector<std::string> names;
    for (auto& row : rows("PRAGMA table_info(\"" + table + "\")")) names.push_back(row[1]);
    return names;
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace rpl::test
