// The rocpd store under bad input and interrupted output: every kind of bad input has its own exit code
// and a message naming the file; the writer never leaves a half-written database at the target path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "store/rocpd_reader.hpp"
#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

namespace fs = std::filesystem;
using rocpd::read_database;
using rocpd::read_databases;

constexpr const char* kSuffix = "_0198a0b1_2c3d_7e4f_8a9b_0c1d2e3f4a5b";

// Runs `f`, expecting rpl::Error with `code` and a message containing every one of `parts`.
void expect_error(const std::function<void()>& f, ExitCode code, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error thrown; expected exit code " << to_int(code);
  } catch (const Error& e) {
    EXPECT_EQ(to_int(e.code()), to_int(code)) << e.what();
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// ---------------------------------------------------------------------------------------------------
// Bad input files.

TEST(RocpdInput, MissingFileIsInputMissing) {
  test::TempDir dir;
  std::string path = dir.file("nothing_here.db");
  expect_error([&] { read_databases({path}); }, ExitCode::InputMissing, {path, "no such file"});
}

TEST(RocpdInput, DirectoryIsInputMissing) {
  test::TempDir dir;
  expect_error([&] { read_databases({dir.path().string()}); }, ExitCode::InputMissing,
               {dir.path().string(), "directory"});
}

TEST(RocpdInput, NonSqliteFilesAreInputCorrupt) {
  test::TempDir dir;
  std::string text = dir.file("notes.db");
  write_bytes(text, std::string(300, 'x'));
  expect_error([&] { read_databases({text}); }, ExitCode::InputCorrupt, {text, "not an SQLite database"});
  std::string tiny = dir.file("tiny.db");
  write_bytes(tiny, "SQLite");
  expect_error([&] { read_databases({tiny}); }, ExitCode::InputCorrupt, {tiny});
  std::string empty = dir.file("empty.db");
  write_bytes(empty, "");
  expect_error([&] { read_databases({empty}); }, ExitCode::InputCorrupt, {empty, "empty"});
}

TEST(RocpdInput, TruncatedDatabaseIsInputCorrupt) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  auto size = fs::file_size(path);
  fs::resize_file(path, size / 2);
  expect_error([&] { read_databases({path}); }, ExitCode::InputCorrupt, {path, "truncated"});
}

TEST(RocpdInput, TruncatedDatabaseWithoutPageCountIsInputCorrupt) {
  // When the header's page count is not valid (version-valid-for != change counter), only SQLite's own
  // errors while reading can tell: they must map to InputCorrupt too.
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  std::string bytes = read_bytes(path);
  bytes.resize(bytes.size() / 2);
  bytes[95] = static_cast<char>(bytes[95] + 1);  // version-valid-for, offset 92..95
  write_bytes(path, bytes);
  expect_error([&] { read_databases({path}); }, ExitCode::InputCorrupt, {path});
}

TEST(RocpdInput, DamagedPagesAreInputCorrupt) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  std::string bytes = read_bytes(path);
  for (std::size_t i = 65536; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5 ^ (i * 7));  // all but page 1
  write_bytes(path, bytes);
  expect_error([&] { read_databases({path}); }, ExitCode::InputCorrupt, {path});
}

TEST(RocpdInput, SqliteWithoutRocpdTablesIsInputNotRocpd) {
  test::TempDir dir;
  std::string path = dir.file("other.db");
  {
    test::SqlFile db(path);
    db.exec("CREATE TABLE measurements (id INTEGER PRIMARY KEY, value REAL); INSERT INTO measurements VALUES (1, 2.5);");
  }
  expect_error([&] { read_databases({path}); }, ExitCode::InputNotRocpd, {path, "not a rocpd trace"});
}

TEST(RocpdInput, MissingRequiredColumnIsInputNotRocpd) {
  test::TempDir dir;
  std::string path = dir.file("odd.db");
  {
    test::SqlFile db(path);
    db.exec("CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, dispatch_id INTEGER, agent_id INTEGER, "
            "kernel_id INTEGER, \"end\" BIGINT); INSERT INTO rocpd_kernel_dispatch VALUES (1, 1, 0, 0, 5);");
  }
  expect_error([&] { read_databases({path}); }, ExitCode::InputNotRocpd, {path, "\"start\""});
}

TEST(RocpdInput, TraceWithoutDispatchesOrCopiesIsInputEmpty) {
  test::TempDir dir;
  test::FixtureSpec spec;
  spec.streams = 0;
  spec.copies = false;
  std::string path = test::make_fixture_db(dir.path(), spec);
  Trace t;
  read_database(t, path);  // one database alone is not an error ...
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.api_calls.size(), 2u);  // the two host syncs
  // ... but nothing to analyse in any input is.
  expect_error([&] { read_databases({path}); }, ExitCode::InputEmpty, {path});
}

TEST(RocpdInput, DispatchEndingBeforeItStartsIsInputInvalid) {
  test::TempDir dir;
  test::FixtureRows rows = test::fixture_rows();
  rows.dispatches[3].end = rows.dispatches[3].start - 5;  // dispatch 4
  std::string path = dir.file("bad_results.db");
  test::write_fixture(rows, path);
  expect_error([&] { read_databases({path}); }, ExitCode::InputInvalid,
               {path, "dispatch 4", std::to_string(rows.dispatches[3].start), std::to_string(rows.dispatches[3].end)});

  rocpd::ReadOptions lenient;
  lenient.lenient = true;
  Trace t = read_databases({path}, lenient);
  ASSERT_EQ(t.dispatches.size(), 6u);  // 7 - 1 dropped
  for (const Dispatch& d : t.dispatches) EXPECT_NE(d.dispatch_id, 4);
}

TEST(RocpdInput, CopyEndingBeforeItStartsIsInputInvalid) {
  test::TempDir dir;
  test::FixtureRows rows = test::fixture_rows();
  rows.copies[1].end = rows.copies[1].start - 1;
  std::string path = dir.file("bad_copy_results.db");
  test::write_fixture(rows, path);
  expect_error([&] { read_databases({path}); }, ExitCode::InputInvalid, {path, "memory copy 2"});
}

TEST(RocpdInput, DuplicateDispatchIdIsInputInvalid) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  {
    test::SqlFile db(path);
    db.exec(std::string("UPDATE rocpd_kernel_dispatch") + kSuffix + " SET dispatch_id = 2 WHERE dispatch_id = 5");
  }
  expect_error([&] { read_databases({path}); }, ExitCode::InputInvalid, {path, "dispatch id 2"});
}

TEST(RocpdInput, SameDatabaseTwiceIsInputInvalidAndLeavesTheTraceAsItWas) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  expect_error([&] { read_databases({path, path}); }, ExitCode::InputInvalid, {path, "already read"});

  Trace t;
  read_database(t, path);
  std::size_t dispatches = t.dispatches.size(), agents = t.agents.size(), processes = t.processes.size();
  expect_error([&] { read_database(t, path); }, ExitCode::InputInvalid, {"0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b"});
  EXPECT_EQ(t.dispatches.size(), dispatches);
  EXPECT_EQ(t.agents.size(), agents);
  EXPECT_EQ(t.processes.size(), processes);
}

TEST(RocpdInput, ReportsProgressEveryHundredThousandRows) {
  test::TempDir dir;
  test::FixtureSpec spec;
  spec.kernels_per_stream = 55000;  // 110000 dispatches + 110001 launches and other calls
  spec.counters = false;
  std::string path = test::make_fixture_db(dir.path(), spec);
  std::vector<std::size_t> calls;
  rocpd::ReadOptions options;
  options.progress = [&](std::string_view file, std::size_t rows) {
    EXPECT_EQ(file, path);
    calls.push_back(rows);
  };
  Trace t = read_databases({path}, options);
  // Rows: 110001 dispatches (with the consumer) + 2 copies + 110007 calls + 2 GPU ops = 220012.
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], 100000u);
  EXPECT_EQ(calls[1], 200000u);
  EXPECT_EQ(calls[2], 220012u);
}

// ---------------------------------------------------------------------------------------------------
// The writer's partial file.

rocpd::ProcessRow a_process() {
  rocpd::ProcessRow p;
  p.pid = 99;
  return p;
}

TEST(RocpdWriter, WritesToPartialFileAndRenamesOnFinish) {
  test::TempDir dir;
  std::string path = dir.file("out_results.db");
  rocpd::Writer w(path, rocpd::NodeRow{}, a_process());
  EXPECT_TRUE(fs::exists(path + ".partial"));
  EXPECT_FALSE(fs::exists(path));
  w.finish();
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_TRUE(fs::exists(path));
  test::SqlFile db(path);
  EXPECT_EQ(db.value("SELECT value FROM rocpd_metadata WHERE tag = 'guid'"), w.guid());
}

TEST(RocpdWriter, WithoutFinishRemovesPartialAndKeepsTheOldFile) {
  test::TempDir dir;
  std::string path = dir.file("out_results.db");
  write_bytes(path, "the previous, complete database");
  {
    rocpd::Writer w(path, rocpd::NodeRow{}, a_process());
    rocpd::DispatchRow d;
    d.dispatch_id = 1;
    w.add_dispatch(d);
  }
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_EQ(read_bytes(path), "the previous, complete database");
}

TEST(RocpdWriter, FailureMidwayRemovesPartialAndKeepsTheOldFile) {
  test::TempDir dir;
  std::string path = dir.file("out_results.db");
  write_bytes(path, "old");
  expect_error(
      [&] {
        rocpd::Writer w(path, rocpd::NodeRow{}, a_process());
        rocpd::DispatchRow d;
        d.dispatch_id = 7;
        w.add_dispatch(d);
        w.add_dispatch(d);  // the same dispatch id twice: the table's primary key refuses it
        w.finish();
      },
      ExitCode::OutputFailed, {path + ".partial", "UNIQUE"});
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_EQ(read_bytes(path), "old");
}

TEST(RocpdWriter, ReplacesAStalePartialFile) {
  test::TempDir dir;
  std::string path = dir.file("out_results.db");
  write_bytes(path + ".partial", "left over by a crashed run");
  rocpd::Writer w(path, rocpd::NodeRow{}, a_process());
  w.finish();
  Trace t;
  read_database(t, path);
  EXPECT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].pid, 99);
}

TEST(RocpdWriter, UnwritableDirectoryIsOutputFailed) {
  test::TempDir dir;
  std::string path = dir.file("no/such/dir/out_results.db");
  expect_error([&] { rocpd::Writer w(path, rocpd::NodeRow{}, a_process()); }, ExitCode::OutputFailed, {path});
}

TEST(RocpdWriter, RejectsGuidThatIsNotAUuid) {
  test::TempDir dir;
  std::string path = dir.file("out_results.db");
  expect_error([&] { rocpd::Writer w(path, rocpd::NodeRow{}, a_process(), "my-process"); }, ExitCode::Internal,
               {"my-process"});
  EXPECT_FALSE(fs::exists(path + ".partial"));
  // Upper-case hex is accepted and written in lower case, as table suffixes need.
  rocpd::Writer w(path, rocpd::NodeRow{}, a_process(), "0198A0B1-2C3D-7E4F-8A9B-0C1D2E3F4A5B");
  EXPECT_EQ(w.guid(), "0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b");
}

TEST(RocpdWriter, CounterValueForUnknownDispatchIsAnError) {
  test::TempDir dir;
  rocpd::Writer w(dir.file("out_results.db"), rocpd::NodeRow{}, a_process());
  expect_error([&] { w.add_pmc_value({42, 1, 1.0}); }, ExitCode::Internal, {"dispatch 42"});
}

}  // namespace
}  // namespace rpl
