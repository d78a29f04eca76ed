#pragma once
// Buffers the rows of one INSERT and writes them many at a time with a multi-row statement:
// one statement execution (and one round of AUTOINCREMENT bookkeeping) per batch instead of per row.
// Rows reach the database on flush(): when a batch is full, or when the owner asks (before reading
// back, and before commit).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite_db.hpp"

namespace rpl::sqlite {

class BatchInsert {
 public:
  BatchInsert(Db& db, const std::string& table, const std::string& columns, int column_count, int batch_rows = 64);

  // One row: exactly column_count values, in column order, then end_row().
  BatchInsert& add(int64_t value) {
    Value& v = next();
    v.type = Value::Int, v.i = value;
    return *this;
  }
  BatchInsert& add(double value) {
    Value& v = next();
    v.type = Value::Real, v.d = value;
    return *this;
  }
  BatchInsert& add(std::string_view text) {  // copied into a reused buffer: no allocation once warm
    Value& v = next();
    v.type = Value::Text, v.s.assign(text.data(), text.size());
    return *this;
  }
  // Empty text as NULL, as rocprofv3 writes empty strings.
  BatchInsert& add_text_or_null(std::string_view text) { return text.empty() ? add_null() : add(text); }
  BatchInsert& add_null() {
    next().type = Value::Null;
    return *this;
  }
  void end_row();
  void flush();

 private:
  struct Value {
    enum Type { Null, Int, Real, Text } type = Null;
    int64_t i = 0;
    double d = 0;
    std::string s;
  };
  Value& next() { return values_[filled_++]; }
  void bind_row(Stmt& stmt, std::size_t first_value, int first_parameter);

  int columns_;
  int batch_rows_;
  std::unique_ptr<Stmt> one_row_, full_batch_;
  std::vector<Value> values_;
  std::size_t filled_ = 0;
};

}  // namespace rpl::sqlite
