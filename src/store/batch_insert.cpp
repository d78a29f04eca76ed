#include "store/batch_insert.hpp"

#include <fmt/core.h>

namespace rpl::sqlite {

namespace {

std::string values_clause(int columns, int rows) {
  std::string row = "(";
  for (int c = 0; c < columns; ++c) row += c ? ",?" : "?";
  row += ")";
  std::string clause;
  for (int r = 0; r < rows; ++r) {
    if (r) clause += ',';
    clause += row;
  }
  return clause;
}

}  // namespace

BatchInsert::BatchInsert(Db& db, const std::string& table, const std::string& columns, int column_count,
                         int batch_rows)
    : columns_(column_count), batch_rows_(batch_rows), values_(static_cast<std::size_t>(column_count * batch_rows)) {
  std::string head = fmt::format("INSERT INTO {} ({}) VALUES ", table, columns);
  one_row_ = std::make_unique<Stmt>(db, head + values_clause(columns_, 1));
  full_batch_ = std::make_unique<Stmt>(db, head + values_clause(columns_, batch_rows_));
}

void BatchInsert::end_row() {
  if (filled_ % static_cast<std::size_t>(columns_) != 0)
    throw Error(ExitCode::Internal, fmt::format("BatchInsert: a row of {} values is incomplete", columns_));
  if (filled_ == values_.size()) flush();
}

void BatchInsert::bind_row(Stmt& stmt, std::size_t first_value, int first_parameter) {
  for (int c = 0; c < columns_; ++c) {
    const Value& v = values_[first_value + static_cast<std::size_t>(c)];
    int p = first_parameter + c;
    switch (v.type) {
      case Value::Null: stmt.bind_null(p); break;
      case Value::Int: stmt.bind(p, v.i); break;
      case Value::Real: stmt.bind(p, v.d); break;
      case Value::Text: stmt.bind_static(p, v.s); break;  // the buffer outlives the step below
    }
  }
}

void BatchInsert::flush() {
  std::size_t rows = filled_ / static_cast<std::size_t>(columns_);
  filled_ = 0;  // even if the insert fails: the rows are not retried
  if (rows == 0) return;
  if (rows == static_cast<std::size_t>(batch_rows_)) {
    for (std::size_t r = 0; r < rows; ++r) bind_row(*full_batch_, r * columns_, static_cast<int>(r) * columns_ + 1);
    full_batch_->run();
    return;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    bind_row(*one_row_, r * columns_, 1);
    one_row_->run();
  }
}

}  // namespace rpl::sqlite
