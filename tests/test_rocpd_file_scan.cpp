// Kernel dispatches read straight from the database file's pages (store/sqlite_file_scan.hpp, issue 32): the
// same records as through SQL where the scan is taken, and SQL (with its messages) wherever it cannot prove that.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "store/rocpd_reader.hpp"
#include "store/rocpd_schema.hpp"
#include "store/sqlite_db.hpp"
#include "store/sqlite_file_scan.hpp"
#include "support/errors.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

constexpr const char* kSuffix = "_0198a0b1_2c3d_7e4f_8a9b_0c1d2e3f4a5b";
const std::string kDispatchTable = std::string("rocpd_kernel_dispatch") + kSuffix;
const std::string kEventTable = std::string("rocpd_event") + kSuffix;

struct Read {
  Trace trace;
  rocpd::ReadOptions::ScanCounts counts;
};

Read read(const std::string& path, bool file_scan, bool lenient = false) {
  Read r;
  rocpd::ReadOptions options;
  options.file_scan = file_scan;
  options.lenient = lenient;
  options.scan_counts = &r.counts;
  rocpd::read_database(r.trace, path, options);
  return r;
}

void expect_same_dispatches(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.dispatches.size(), b.dispatches.size());
  for (std::size_t i = 0; i < a.dispatches.size(); ++i) {
    const Dispatch x = a.dispatches[i], y = b.dispatches[i];
    EXPECT_EQ(x.dispatch_id, y.dispatch_id) << i;
    EXPECT_EQ(x.correlation_id, y.correlation_id) << i;
    EXPECT_EQ(x.start, y.start) << i;
    EXPECT_EQ(x.end, y.end) << i;
    EXPECT_EQ(x.process, y.process) << i;
    EXPECT_EQ(x.agent, y.agent) << i;
    EXPECT_EQ(x.queue, y.queue) << i;
    EXPECT_EQ(x.stream, y.stream) << i;
    EXPECT_EQ(x.thread, y.thread) << i;
    EXPECT_EQ(x.symbol, y.symbol) << i;
    EXPECT_EQ(x.lds_bytes, y.lds_bytes) << i;
    EXPECT_EQ(x.scratch_bytes, y.scratch_bytes) << i;
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(x.grid[k], y.grid[k]) << i;
      EXPECT_EQ(x.block[k], y.block[k]) << i;
    }
    EXPECT_EQ(a.dispatches.launch_of(i), b.dispatches.launch_of(i)) << i;
  }
  EXPECT_EQ(a.symbols.size(), b.symbols.size());
  EXPECT_EQ(a.dispatches.launch_count(), b.dispatches.launch_count());
}

// Reads `path` both ways; expects the file scan taken (or not, with `why` in its reason) and the same records.
Read expect_both_ways_equal(const std::string& path, bool from_file, const std::string& why = "") {
  Read sql = read(path, false);
  Read scan = read(path, true);
  EXPECT_EQ(sql.counts.from_file, 0u);
  EXPECT_EQ(scan.counts.from_file, from_file ? 1u : 0u) << scan.counts.why_sql;
  if (!from_file) {
    EXPECT_NE(scan.counts.why_sql.find(why), std::string::npos) << scan.counts.why_sql;
  }
  expect_same_dispatches(sql.trace, scan.trace);
  return scan;
}

std::string big_fixture(const test::TempDir& dir, int kernels_per_stream = 2000) {
  test::FixtureSpec spec;
  spec.kernels_per_stream = kernels_per_stream;
  spec.counters = false;
  return test::make_fixture_db(dir.path(), spec);
}

// Runs SQL statements on a database file (the views that name a renamed table are left as they are).
void edit(const std::string& path, std::initializer_list<std::string> statements) {
  test::SqlFile db(path);
  db.exec("PRAGMA legacy_alter_table = ON");
  for (const std::string& sql : statements) db.exec(sql);
}

// The fixture with 20 kernels per stream (41 dispatches), edited.
std::string edited_fixture(const test::TempDir& dir, std::initializer_list<std::string> statements) {
  const std::string path = big_fixture(dir, 20);
  edit(path, statements);
  return path;
}

// The dispatch table rebuilt with only `columns` (a table made by CREATE TABLE AS: no rowid alias).
std::string rebuilt_dispatch_table(const std::string& columns) {
  return "CREATE TABLE k2 AS SELECT " + columns + " FROM " + kDispatchTable + "; DROP TABLE " + kDispatchTable +
         "; ALTER TABLE k2 RENAME TO " + kDispatchTable;
}

TEST(RocpdFileScan, FixtureReadsTheSameFromThePagesAsThroughSql) {
  test::TempDir dir;
  Read r = expect_both_ways_equal(big_fixture(dir), true);
  EXPECT_EQ(r.trace.dispatches.size(), 4001u);
  EXPECT_NE(r.trace.dispatches[0].correlation_id, 0);
}

TEST(RocpdFileScan, DeepTreesOfSmallPagesAndLargePages) {
  test::TempDir dir;
  const std::string path = big_fixture(dir);
  for (int page_size : {512, 65536}) {
    {
      test::SqlFile db(path);
      db.exec("PRAGMA page_size = " + std::to_string(page_size) + "; VACUUM;");
    }
    expect_both_ways_equal(path, true);
  }
}

TEST(RocpdFileScan, EventIdsOutOfOrderGoThroughSql) {
  test::TempDir dir;
  const std::string path = edited_fixture(dir, {"UPDATE " + kDispatchTable + " SET event_id = (SELECT MAX(event_id) FROM " +
                                                kDispatchTable + ") WHERE dispatch_id = 3"});
  expect_both_ways_equal(path, false, "not in order");
}

TEST(RocpdFileScan, DispatchesWithoutEventsOrWithSharedEvents) {
  test::TempDir dir;
  // A NULL event id, one past every event row, two dispatches of one event (ids still in order), a NULL stack id.
  const std::string path = edited_fixture(
      dir, {"UPDATE " + kDispatchTable + " SET event_id = NULL WHERE dispatch_id = 2",
            "UPDATE " + kDispatchTable + " SET event_id = event_id - 1 WHERE dispatch_id = 6",
            "UPDATE " + kDispatchTable + " SET event_id = 1000000 WHERE dispatch_id = (SELECT MAX(dispatch_id) FROM " +
                kDispatchTable + ")",
            "UPDATE " + kEventTable + " SET stack_id = NULL WHERE id = (SELECT event_id FROM " + kDispatchTable +
                " WHERE dispatch_id = 9)"});
  Read r = expect_both_ways_equal(path, true);
  EXPECT_EQ(r.trace.dispatches[1].correlation_id, 0);
  EXPECT_EQ(r.trace.dispatches[8].correlation_id, 0);
  EXPECT_EQ(r.trace.dispatches.back().correlation_id, 0);
}

TEST(RocpdFileScan, OptionalColumnsMissingReadAsSqlReadsThem) {
  test::TempDir dir;
  // Without tid, queue, stream, sizes, a dimension and the event id: NULL in the SQL, defaults in the model.
  const std::string path = edited_fixture(
      dir, {rebuilt_dispatch_table("id, guid, nid, pid, agent_id, kernel_id, dispatch_id, start, \"end\", "
                                   "workgroup_size_x, workgroup_size_y, grid_size_x, grid_size_y, grid_size_z, extdata")});
  Read r = expect_both_ways_equal(path, true);
  EXPECT_EQ(r.trace.dispatches[0].correlation_id, 0);
  EXPECT_EQ(r.trace.dispatches[0].stream, kNoIndex);
  EXPECT_EQ(r.trace.dispatches[0].block[2], 1u);
}

TEST(RocpdFileScan, ColumnAddedLaterWithADefaultGoesThroughSql) {
  test::TempDir dir;
  const std::string path = edited_fixture(
      dir, {rebuilt_dispatch_table("id, guid, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, "
                                   "start, \"end\", workgroup_size_x, workgroup_size_y, workgroup_size_z, "
                                   "grid_size_x, grid_size_y, event_id"),
            "ALTER TABLE " + kDispatchTable + " ADD COLUMN grid_size_z INTEGER DEFAULT 4"});
  Read r = expect_both_ways_equal(path, false, "added to its table later");
  EXPECT_EQ(r.trace.dispatches[0].grid[2], 4u);
}

TEST(RocpdFileScan, GeneratedColumnsAndEventIdsThatAreNotRowidsGoThroughSql) {
  test::TempDir dir;
  const std::string path = edited_fixture(
      dir, {"ALTER TABLE " + kDispatchTable + " ADD COLUMN twice INTEGER GENERATED ALWAYS AS (dispatch_id * 2)"});
  expect_both_ways_equal(path, false, "generated");
  edit(path, {"ALTER TABLE " + kDispatchTable + " DROP COLUMN twice",
              "CREATE TABLE e2 AS SELECT * FROM " + kEventTable + "; DROP TABLE " + kEventTable +
                  "; ALTER TABLE e2 RENAME TO " + kEventTable});
  expect_both_ways_equal(path, false, "not the rowid");
}

TEST(RocpdFileScan, ValuesOnOverflowPagesGoThroughSql) {
  test::TempDir dir;
  // A long text before the columns read (the guid is column 1) pushes them onto overflow pages.
  const std::string path = edited_fixture(
      dir, {"UPDATE " + kDispatchTable + " SET guid = guid || printf('%.40000c', 'x') WHERE dispatch_id = 7"});
  expect_both_ways_equal(path, false, "overflow");
  // A long text after them (extdata) overflows without hiding them: still read from the pages.
  edit(path, {"UPDATE " + kDispatchTable +
              " SET guid = substr(guid, 1, 36), extdata = printf('%.40000c', 'x') WHERE dispatch_id = 7"});
  expect_both_ways_equal(path, true);
}

TEST(RocpdFileScan, WalDatabaseReadsFromThePagesOnlyWithoutItsLog) {
  test::TempDir dir;
  const std::string path = edited_fixture(dir, {"PRAGMA journal_mode = WAL"});
  ASSERT_FALSE(std::filesystem::exists(path + "-wal"));  // checkpointed and removed on close
  expect_both_ways_equal(path, true);
  std::ofstream(path + "-wal").close();  // a log (here empty) may hold committed pages
  expect_both_ways_equal(path, false, "WAL");
}

TEST(RocpdFileScan, SeveralProcessesInSharedViewsGoThroughSql) {
  test::TempDir dir;
  std::string a = test::make_fixture_db(dir.path());
  test::FixtureSpec second;
  second.file_name = "second.db";
  second.guid = "0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5c";
  second.pid = 4343;
  std::string b = test::make_fixture_db(dir.path(), second);
  std::string merged = dir.file("merged.db");
  test::write_merged_views(merged, a, b);
  Read r = expect_both_ways_equal(merged, false, "several processes");
  EXPECT_EQ(r.counts.through_sql, 2u);
  EXPECT_EQ(r.trace.dispatches.size(), 14u);
}

TEST(RocpdFileScan, BadValuesGetTheSqlPathsMessagesAndLenientDrops) {
  test::TempDir dir;
  const std::string path =
      edited_fixture(dir, {"UPDATE " + kDispatchTable + " SET start = start + 0.5 WHERE dispatch_id = 5",
                           "UPDATE " + kDispatchTable + " SET workgroup_size_y = 0 WHERE dispatch_id = 8"});
  for (bool file_scan : {true, false}) {
    try {
      read(path, file_scan);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::InputInvalid);
      EXPECT_NE(std::string(e.what()).find("dispatch 5 of process"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("has a start that is not an integer (REAL "), std::string::npos)
          << e.what();
    }
  }
  Read sql = read(path, false, true), scan = read(path, true, true);
  EXPECT_EQ(scan.counts.from_file, 0u);
  expect_same_dispatches(sql.trace, scan.trace);
  EXPECT_EQ(scan.trace.dispatches.size(), 41u - 2u);
}

TEST(RocpdFileScan, PlaceholderSymbolsAreTheSameAfterAFallBack) {
  test::TempDir dir;
  // A missing kernel symbol early (a placeholder is made), then a value that sends the table to SQL.
  const std::string path =
      edited_fixture(dir, {"UPDATE " + kDispatchTable + " SET kernel_id = 77 WHERE dispatch_id = 2",
                           "UPDATE " + kDispatchTable + " SET tid = 'thread' WHERE dispatch_id = 30"});
  Read r = expect_both_ways_equal(path, false, "tid");
  EXPECT_EQ(r.trace.symbols.size(), 4u);  // three symbols and one placeholder
}

// The scanner alone on a table of every stored kind: integers of each width, 0 and 1, NULL, REAL, TEXT, BLOB,
// and rowids with gaps, against SQLite's own reading.
TEST(SqliteFileScan, DecodesEveryIntegerWidthAsSqliteDoes) {
  test::TempDir dir;
  const std::string path = dir.file("kinds.db");
  std::mt19937_64 random(7);
  {
    test::SqlFile db(path);
    db.exec("PRAGMA page_size = 1024; CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c, d); BEGIN");
    for (int i = 0; i < 5000; ++i) {
      const int64_t widths[] = {0, 1, 127, -128, 32767, -32768, 8388607, -8388608, 2147483647, -2147483648LL,
                                140737488355327LL, -140737488355328LL, INT64_MAX, INT64_MIN};
      const int64_t v = widths[random() % 14] ^ static_cast<int64_t>(random() % 3);
      const std::string b = random() % 5 == 0 ? "NULL" : random() % 4 == 0 ? "2.5" : std::to_string(v);
      db.exec("INSERT INTO t VALUES (" + std::to_string(i * 3 + static_cast<int>(random() % 3)) + ", " +
              std::to_string(v) + ", " + b + ", 'text', x'0102') ");
    }
    db.exec("COMMIT");
  }
  sqlite::Db db(path, SQLITE_OPEN_READONLY, path, sqlite::kReading);
  sqlite::Stmt s(db, "SELECT rowid, a, b, c, d FROM t");
  sqlite::DatabaseFile file(db);
  sqlite::RowidTableScan scan(file, file.rowid_table_root("t"), 4);
  std::size_t rows = 0;
  while (s.step()) {
    ASSERT_TRUE(scan.next());
    ++rows;
    EXPECT_EQ(scan.rowid(), s.i64(0));
    EXPECT_EQ(scan[0].kind, sqlite::StoredValue::Null);  // the rowid alias
    ASSERT_EQ(scan[1].kind, sqlite::StoredValue::Integer);
    EXPECT_EQ(scan[1].value, s.i64(1));
    if (s.type(2) == SQLITE_INTEGER) {
      EXPECT_EQ(scan[2].value, s.i64(2));
    }
    EXPECT_EQ(scan[2].kind, s.type(2) == SQLITE_INTEGER ? sqlite::StoredValue::Integer
                            : s.type(2) == SQLITE_NULL  ? sqlite::StoredValue::Null
                                                        : sqlite::StoredValue::Other);
    EXPECT_EQ(scan[3].kind, sqlite::StoredValue::Other);
    EXPECT_EQ(scan[4].kind, sqlite::StoredValue::Other);
  }
  EXPECT_FALSE(scan.next());
  EXPECT_EQ(rows, 5000u);
}

TEST(SqliteFileScan, ViewsAndDamagedPagesAreNotScanned) {
  test::TempDir dir;
  const std::string path = dir.file("small.db");
  {
    test::SqlFile db(path);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a); CREATE VIEW v AS SELECT * FROM t; "
            "CREATE TABLE w (a PRIMARY KEY, b) WITHOUT ROWID; INSERT INTO t VALUES (1, 2);");
  }
  {
    sqlite::Db db(path, SQLITE_OPEN_READONLY, path, sqlite::kReading);
    sqlite::DatabaseFile file(db);
    EXPECT_THROW(file.rowid_table_root("v"), sqlite::FileScanUnsupported);
    EXPECT_THROW(file.rowid_table_root("w"), sqlite::FileScanUnsupported);
    EXPECT_THROW(file.rowid_table_root("missing"), sqlite::FileScanUnsupported);
    EXPECT_EQ(file.rowid_table_root("t"), 2u);
  }
  // Page 2 (t's root) made an index page: the scan refuses it instead of reading it as rows.
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(4096);
  f.put(static_cast<char>(0x0a));
  f.close();
  sqlite::Db db(path, SQLITE_OPEN_READONLY, path, sqlite::kReading);
  sqlite::DatabaseFile file(db);
  sqlite::RowidTableScan scan(file, 2, 1);
  EXPECT_THROW(scan.next(), sqlite::FileScanUnsupported);
}

}  // namespace
}  // namespace rpl
