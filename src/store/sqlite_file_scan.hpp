#pragma once
// Reads the rows of one SQLite rowid table straight from the database file, in rowid order (the order of
// SQLite's own full scan), decoding integers and NULLs only (issue 32: at 100M dispatches SQLite's virtual
// machine and column calls were most of `analyze`'s reading; this walk of the table's B-tree pages costs a
// fraction of that, docs/analyze-scaling.md).
//
// It reads only what it can prove to be what SQLite would return, from the documented file format
// (https://www.sqlite.org/fileformat2.html): a database in rollback-journal mode read under SQLite's shared
// lock (the connection holds a read transaction while the scan runs, so no writer can commit), or in WAL mode
// with no "-wal" file (then every committed page is in the main file). Anything else (a view, a virtual or
// WITHOUT ROWID table, generated columns, a page that is not as the format says, a row whose columns reach an
// overflow page) throws FileScanUnsupported, and the caller reads the table through SQL instead.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/sqlite_db.hpp"

namespace rpl::sqlite {

// Why a table cannot be read from the file (the caller falls back to SQL).
struct FileScanUnsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One stored value: NULL, an integer, something else (REAL, TEXT, BLOB: not decoded), or absent (the record
// ends before this column: a column added later with ALTER TABLE, whose default SQLite would supply).
struct StoredValue {
  enum Kind : uint8_t { Null, Integer, Other, Absent };
  Kind kind = Null;
  int64_t value = 0;
};

// The main database file of a connection, opened for direct reads while the connection holds a read
// transaction. Throws FileScanUnsupported when the file alone may not hold what SQLite reads.
class DatabaseFile {
 public:
  explicit DatabaseFile(Db& db);
  ~DatabaseFile();
  DatabaseFile(const DatabaseFile&) = delete;
  DatabaseFile& operator=(const DatabaseFile&) = delete;

  uint32_t page_size() const { return page_size_; }
  uint32_t usable_size() const { return usable_size_; }
  uint32_t page_count() const { return page_count_; }
  // Reads page `page` (1-based) into `out` (page_size() bytes); throws FileScanUnsupported past the end.
  void read_page(uint32_t page, std::vector<uint8_t>& out) const;
  // The root page of `table` when it is an ordinary rowid table whose stored columns are its declared
  // columns in order (no generated or hidden columns); throws FileScanUnsupported otherwise.
  uint32_t rowid_table_root(const std::string& table);

 private:
  Db& db_;
  std::optional<Stmt> read_lock_;  // a stepped statement: SQLite's read transaction stays open
  int fd_ = -1;
  uint32_t page_size_ = 0, usable_size_ = 0, page_count_ = 0;
};

// The rows of one rowid table, in rowid order. Each row's columns 0..max_column are decoded.
class RowidTableScan {
 public:
  RowidTableScan(const DatabaseFile& file, uint32_t root_page, int max_column);
  // Advances to the next row; false after the last. Throws FileScanUnsupported on a malformed page.
  bool next();
  int64_t rowid() const { return rowid_; }
  // Column `column` (<= max_column) of the current row, as stored (a rowid alias column is stored as NULL).
  const StoredValue& operator[](int column) const { return values_[static_cast<std::size_t>(column)]; }

 private:
  struct Level {
    std::vector<uint8_t> page;
    uint32_t number = 0;
    unsigned cells = 0, next = 0;  // interior pages: next child to visit (cells = the right-most pointer)
  };
  void descend(uint32_t page);
  bool next_leaf();
  void decode(const uint8_t* payload, std::size_t local_bytes, uint64_t total_bytes);

  const DatabaseFile& file_;
  std::vector<Level> path_;  // interior pages from the root, then the current leaf
  std::vector<uint8_t> leaf_;
  unsigned leaf_cells_ = 0, leaf_next_ = 0;
  std::size_t leaf_header_ = 0;
  bool started_ = false, done_ = false;
  uint32_t root_ = 0;
  uint64_t pages_read_ = 0;
  int64_t rowid_ = 0;
  std::vector<StoredValue> values_;
};

}  // namespace rpl::sqlite
