// Hostile and damaged inputs, end to end (issue 19): no crash, no silent wrong answer, no clobbered file.
// Every trace here is a fresh fixture database (tests/testing/fixtures.hpp) mutated with SQL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "capture/blob.hpp"
#include "analysis/deep_analysis.hpp"
#include "capture/manifest.hpp"
#include "collectors/nvidia/cubin_resources.hpp"
#include "support/errors.hpp"
#include "support/temp_file.hpp"
#include "support/terminal_text.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/schema_check.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using namespace rpl::test;

namespace {

std::string table(SqlFile& sql, const std::string& base) {
  return sql.value("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_" + base + "_%'");
}

// Lifts the NOT NULL constraint of the dispatch start column (as a damaged or foreign writer might have).
constexpr const char* kNullableStart =
    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'start BIGINT NOT NULL', "
    "'start BIGINT') WHERE name = '{dispatch}'; PRAGMA writable_schema = OFF;\n--reconnect\n";

// A fixture with `mutation` applied; "{dispatch}" / "{copy}" / "{symbol}" name the tables, and a line
// "--reconnect" starts a fresh connection (after a schema edit).
std::string mutated_fixture(const TempDir& dir, const std::string& mutation, const std::string& name = "m.db") {
  FixtureSpec spec;
  spec.file_name = name;
  std::string db = make_fixture_db(dir.path(), spec);
  std::string m = mutation;
  {
    SqlFile sql(db);
    for (auto [key, base] : {std::pair{"{dispatch}", "kernel_dispatch"}, std::pair{"{copy}", "memory_copy"},
                             std::pair{"{symbol}", "info_kernel_symbol"}}) {
      for (auto at = m.find(key); at != std::string::npos; at = m.find(key))
        m.replace(at, std::string(key).size(), table(sql, base));
    }
  }
  const std::string separator = "\n--reconnect\n";
  for (std::size_t begin = 0; begin <= m.size();) {
    std::size_t end = m.find(separator, begin);
    std::string part = m.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (!part.empty()) SqlFile(db).exec(part);
    if (end == std::string::npos) break;
    begin = end + separator.size();
  }
  return db;
}

// Runs a shell command line; returns its exit status (128 + signal when killed).
int shell(const std::string& command) {
  int status = std::system(("/bin/bash -c '" + command + "'").c_str());
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

void expect_invalid(const CliResult& r, const std::string& db, const std::string& what) {
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find(db), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

}  // namespace

// Item 1: a span wider than INT64_MAX used to overflow in the HTML timeline and crash after the JSON was
// written. Such times are now rejected by the reader (outside 0..2^62); the widest accepted span draws.
TEST(Robustness, HugeSpansAreRejectedOrDrawnNeverCrash) {
  TempDir dir;
  std::string wide = mutated_fixture(dir, "UPDATE {dispatch} SET start = -5000000000000000000, \"end\" = "
                                          "5000000000000000000 WHERE id = (SELECT MIN(id) FROM {dispatch})");
  auto r = run_cli({"analyze", wide, "-o", dir.file("out1")});
  expect_invalid(r, wide, "start -5000000000000000000");
  EXPECT_FALSE(fs::exists(dir.file("out1/report.html")));

  std::string copies = mutated_fixture(
      dir, "UPDATE {copy} SET start = -9223372036854775808, \"end\" = 9223372036854775807", "copies.db");
  expect_invalid(run_cli({"analyze", copies, "-o", dir.file("out2")}), copies, "memory copy");

  // The widest span the reader accepts: 0 .. 2^62 on one dispatch, beside normal ones.
  std::string widest = mutated_fixture(dir, "UPDATE {dispatch} SET start = 0, \"end\" = 4611686018427387904 "
                                            "WHERE id = (SELECT MIN(id) FROM {dispatch})", "widest.db");
  r = run_cli({"analyze", widest, "-o", dir.file("out3")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.file("out3/report.html")));
  for (const char* f : {"profile", "dag", "analysis", "roofline"})
    EXPECT_EQ(validate_against_schema(f, dir.file(std::string("out3/") + f + ".json")), "") << f;
  auto profile = nlohmann::json::parse(read_file(dir.file("out3/profile.json")));
  EXPECT_GT(profile["timing"]["wall_span_ns"].get<double>(), 4.6e18);
}

// Item 1: a stale report.html of an earlier run never stays beside new JSON.
TEST(Robustness, OldReportHtmlIsRemovedWhenARunWritesNone) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "");
  ASSERT_EQ(run_cli({"analyze", db, "-o", dir.file("out")}).exit_code, 0);
  ASSERT_TRUE(fs::exists(dir.file("out/report.html")));
  ASSERT_EQ(run_cli({"analyze", db, "-o", dir.file("out"), "--no-html"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir.file("out/report.html")));
}

// Item 4: start/end that are not integers in range, and impossible dimensions, are invalid data (exit 7),
// or dropped with a warning under --lenient; never read as 0 or a wrapped number.
TEST(Robustness, NonIntegerAndOutOfRangeColumnsAreInvalid) {
  TempDir dir;
  struct Case {
    std::string mutation, message;
  } cases[] = {
      {std::string(kNullableStart) + "UPDATE {dispatch} SET start = NULL WHERE id = 1",
       "start that is not an integer (NULL)"},
      {"UPDATE {dispatch} SET start = 'soon' WHERE id = 1", "start that is not an integer (TEXT)"},
      {"UPDATE {dispatch} SET start = x'00ff' WHERE id = 1", "start that is not an integer (BLOB)"},
      {"UPDATE {dispatch} SET \"end\" = 1e300 WHERE id = 1", "end that is not an integer (REAL 1e+300)"},
      {"UPDATE {dispatch} SET start = -1e999 WHERE id = 1", "start that is not an integer (REAL -inf)"},
      {"UPDATE {dispatch} SET grid_size_x = 0 WHERE id = 1", "grid_size_x 0"},
      {"UPDATE {dispatch} SET workgroup_size_y = -3 WHERE id = 1", "workgroup_size_y -3"},
      {"UPDATE {copy} SET size = -1 WHERE id = 1", "size -1"},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mutation);
    std::string db = mutated_fixture(dir, c.mutation, "case" + std::to_string(n++) + ".db");
    expect_invalid(run_cli({"analyze", db, "--no-html", "-o", dir.file("out")}), db, c.message);
    auto lenient = run_cli({"analyze", db, "--lenient", "--json", "-o", dir.file("out")});
    ASSERT_EQ(lenient.exit_code, 0) << lenient.err;
    EXPECT_NE(lenient.err.find("dropped"), std::string::npos) << lenient.err;
    auto doc = nlohmann::json::parse(lenient.out);
    double runtime = doc["profile"]["runtime_ms"].get<double>();
    EXPECT_GT(runtime, 0.1);   // the fixture's 0.159 ms, less at most the dropped record
    EXPECT_LE(runtime, 0.159);
  }
}

// NULL sizes read as 0 and NULL dimensions as 1 (the model's defaults; the reader does this in C++ since
// issue 32 took IFNULL out of its per-dispatch query): the same kernels as the fixture they came from.
TEST(Robustness, NullSizesAndDimensionsReadAsTheirDefaults) {
  TempDir dir;
  std::string plain = mutated_fixture(dir, "", "plain.db");
  std::string nulls = mutated_fixture(
      dir,
      "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'grid_size_y INTEGER NOT NULL', "
      "'grid_size_y INTEGER') WHERE name = '{dispatch}'; PRAGMA writable_schema = OFF;\n--reconnect\n"
      "UPDATE {dispatch} SET grid_size_y = NULL, private_segment_size = NULL, group_segment_size = NULL "
      "WHERE grid_size_y = 1 AND IFNULL(private_segment_size, 0) = 0 AND IFNULL(group_segment_size, 0) = 0",
      "nulls.db");
  SqlFile check(nulls);
  ASSERT_GT(std::stoll(check.value("SELECT COUNT(*) FROM " + table(check, "kernel_dispatch") +
                                   " WHERE grid_size_y IS NULL")), 0);
  auto a = run_cli({"analyze", plain, "--json", "--no-html", "-o", dir.file("a")});
  auto b = run_cli({"analyze", nulls, "--json", "--no-html", "-o", dir.file("b")});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["profile"]["kernels"], nlohmann::json::parse(b.out)["profile"]["kernels"]);
}

// Item 10: a reserve sized from row ids the input controls ran out of memory on one dispatch id 2^30.
TEST(Robustness, HugeRowIdsDoNotSizeAllocations) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "UPDATE {dispatch} SET id = 1073741824 WHERE id = (SELECT MAX(id) FROM "
                                        "{dispatch}); UPDATE {copy} SET id = 4611686018427387904 WHERE id = 2");
  auto r = run_cli({"analyze", db, "--quiet", "--no-html", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0.159000\n");
}

// Item 3: write failures give exit 10 and a message, never SIGABRT, and leave no temporary files.
TEST(Robustness, WriteFailuresExitTenAndLeaveNoPartialFiles) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "");
  std::string cli = RPL_CLI_PATH;
  std::string out = dir.file("out");
  EXPECT_EQ(shell(cli + " analyze " + db + " --json --no-html -o " + out + " >/dev/full 2>" + dir.file("e1")), 10)
      << read_file(dir.file("e1"));
  EXPECT_NE(read_file(dir.file("e1")).find("No space left on device"), std::string::npos) << read_file(dir.file("e1"));
  EXPECT_EQ(shell(cli + " analyze " + db + " --json --no-html -o " + out + " >&- 2>" + dir.file("e2")), 10)
      << read_file(dir.file("e2"));
  EXPECT_EQ(shell(cli + " analyze " + db + " --no-html -o " + out + " >&- 2>" + dir.file("e3")), 10)
      << read_file(dir.file("e3"));

  // A full disk: files may not grow past 8 KiB (RLIMIT_FSIZE, SIGXFSZ ignored so write() fails with EFBIG).
  std::string full = dir.file("full");
  int rc = shell("trap \"\" XFSZ; ulimit -f 4; " + cli + " analyze " + db + " -o " + full + " 2>" + dir.file("e4"));
  EXPECT_EQ(rc, 10) << read_file(dir.file("e4"));
  EXPECT_NE(read_file(dir.file("e4")).find("cannot write " + full), std::string::npos) << read_file(dir.file("e4"));
  for (const std::string& name : files_in(full))
    EXPECT_EQ(name.find("partial"), std::string::npos) << "left behind: " << name;
}

// Item 7: temporary files are created exclusively under an unpredictable name; a symlink planted at the
// output (or anywhere) is replaced, never written through.
TEST(Robustness, OutputsNeverWriteThroughPlantedSymlinks) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "");
  std::string out = dir.file("out");
  fs::create_directories(out);
  std::string victim = dir.file("victim.txt");
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, out + "/profile.json");
  // The old predictable temporary names, for every pid the run might get nearby.
  for (int pid = getpid(); pid < getpid() + 2000; ++pid)
    fs::create_symlink(victim, out + "/dag.json.partial." + std::to_string(pid));
  auto r = run_cli({"analyze", db, "--no-html", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(out + "/profile.json"));
  EXPECT_EQ(validate_against_schema("profile", out + "/profile.json"), "");
}

TEST(Robustness, TemporaryFilesAreRemovedOnSignalsAndStaleOnesOnTheNextRun) {
  TempDir dir;
  std::string target = dir.file("result.json");
  // A child holding a temporary file is stopped by SIGTERM: the handler removes the file.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    rpl::TempFile tmp(target);
    kill(getpid(), SIGTERM);
    _exit(0);  // not reached
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
  EXPECT_EQ(files_in(dir.path().string()), std::vector<std::string>{});

  // SIGKILL leaves one: it is recognised by its name and dead pid, and removed by the next TempFile.
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, &status, 0);
  std::string stale = ".result.json.partial-" + std::to_string(dead) + "-abcDEF";
  std::string live = ".result.json.partial-" + std::to_string(getppid()) + "-abcDEF";  // a running process
  std::ofstream(dir.file(stale)) << "x";
  std::ofstream(dir.file(live)) << "x";
  EXPECT_TRUE(rpl::is_temp_name_for(stale, "result.json"));
  EXPECT_FALSE(rpl::is_temp_name_for("result.json", "result.json"));
  {
    rpl::TempFile tmp(target);
    EXPECT_FALSE(fs::exists(dir.file(stale)));
    EXPECT_TRUE(fs::exists(dir.file(live)));
    EXPECT_TRUE(rpl::is_temp_name_for(fs::path(tmp.path()).filename().string(), "result.json"));
  }
  EXPECT_EQ(files_in(dir.path().string()), std::vector<std::string>{live});
}

// Outputs get the mode open(2) would give them (0666 & ~umask; folders 0777 & ~umask), not mkstemp's 0600,
// so a report written on a shared file system is readable by colleagues when the user's umask says so.
TEST(Robustness, OutputsHonourTheUmask) {
  struct UmaskGuard {
    mode_t old;
    explicit UmaskGuard(mode_t m) : old(umask(m)) {}
    ~UmaskGuard() { umask(old); }
  };
  for (mode_t mask : {mode_t{022}, mode_t{027}, mode_t{077}}) {
    UmaskGuard guard(mask);
    TempDir dir;
    std::string out = dir.file("out");
    auto r = run_cli({"analyze", make_fixture_db(dir.path()), "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
      struct stat st {};
      ASSERT_EQ(lstat(e.path().c_str(), &st), 0);
      mode_t expected = (S_ISDIR(st.st_mode) ? 0777 : 0666) & ~mask;
      EXPECT_EQ(st.st_mode & 0777, expected) << e.path() << " under umask 0" << std::oct << mask;
      files += S_ISREG(st.st_mode);
    }
    EXPECT_GE(files, 4u);  // profile.json, dag.json, analysis.json, report.html at least
    struct stat st {};
    ASSERT_EQ(stat(out.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0777 & ~mask);
    // The temporary-file class itself, for writers that do not go through analyze.
    {
      rpl::TempFile tmp(dir.file("direct.json"));
      tmp.commit();
    }
    ASSERT_EQ(stat(dir.file("direct.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);
  }
}

// Item 8: control characters from a kernel name never reach the terminal raw.
TEST(Robustness, KernelNamesCannotDriveTheTerminal) {
  EXPECT_EQ(rpl::terminal_safe("a\x1b]0;x\x07\r\n\tb\xc2\x9b" "c\xc3\xa9"), "a\\x1b]0;x\\x07\\x0d\n\tb\\u009bc\xc3\xa9");
  TempDir dir;
  std::string db = mutated_fixture(
      dir, "UPDATE {symbol} SET display_name = 'evil' || char(27) || ']0;pwned' || char(7) || char(27) || '[2J' || "
           "char(13) || 'kernel'");
  auto r = run_cli({"analyze", db, "--no-html", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("evil\\x1b]0;pwned"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  // An error message echoing corrupt bytes: the file name itself carries them.
  std::string evil_path = dir.file("x\x1b[2J.db");
  auto e = run_cli({"analyze", evil_path});
  EXPECT_EQ(e.exit_code, 3);
  EXPECT_EQ(e.err.find('\x1b'), std::string::npos) << e.err;
}

// Item 2: user patterns run in linear time (RE2): long names and catastrophic patterns finish at once.
TEST(Robustness, UserPatternsAreLinearTime) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "UPDATE {symbol} SET display_name = 'k' || replace(hex(zeroblob(50000)), "
                                        "'00', 'ab')");
  auto start = std::chrono::steady_clock::now();
  auto r = run_cli({"analyze", db, "--no-html", "--quiet", "-o", dir.file("out"), "--what-if", "(.*){8}x=0.5",
                    "--what-if", "(a|ab)*(a|ab)*c=2", "--what-if", "(.*.*)*y|k=0.5"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(seconds, 20.0);
  // --kernel of `resources` (and of `profile`, `capture`): the same engine.
  std::string co = std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co";
  auto bad = run_cli({"resources", co, "--kernel", "(unclosed"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--kernel: invalid regular expression '(unclosed'"), std::string::npos) << bad.err;
  // Linear time: it runs to the end and matches no kernel, which is exit 6 as in analyze (not a hang).
  EXPECT_EQ(run_cli({"resources", co, "--kernel", "(.*.*)*z"}).exit_code, 6);
  auto bad_what_if = run_cli({"analyze", db, "--no-html", "-o", dir.file("out"), "--what-if", "a\\=2"});
  EXPECT_EQ(bad_what_if.exit_code, 2) << bad_what_if.err;
}

// Item 5: counter values that are not finite counts used to become null in roofline.json (against its
// schema); they are invalid data now, and dropped under --lenient, after which every output validates.
TEST(Robustness, NonFiniteCounterValuesAreInvalid) {
  TempDir dir;
  int n = 0;
  for (const char* value : {"1e308", "1e999", "-5", "'lots'"}) {
    SCOPED_TRACE(value);
    std::string name = "counters" + std::to_string(n++) + ".db";
    std::string db = mutated_fixture(dir, "", name);
    {
      SqlFile sql(db);
      sql.exec("UPDATE \"" + table(sql, "pmc_event") + "\" SET value = " + value + " WHERE rowid % 3 = 0");
    }
    expect_invalid(run_cli({"analyze", db, "--no-html", "-o", dir.file("out")}), db, "counter");
    auto r = run_cli({"analyze", db, "--no-html", "--lenient", "-o", dir.file("out")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* f : {"profile", "dag", "analysis", "roofline"})
      EXPECT_EQ(validate_against_schema(f, dir.file(std::string("out/") + f + ".json")), "") << f;
  }
}

// Item 6: a live writer's uncommitted change is never read; a hot journal is never read through.
TEST(Robustness, UncommittedAndTornDataIsNeverRead) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "");
  {
    SqlFile writer(db);
    writer.exec("BEGIN IMMEDIATE; UPDATE \"" + table(writer, "kernel_dispatch") +
                "\" SET \"end\" = \"end\" + 1000000000000");
    auto r = run_cli({"analyze", db, "--quiet", "--no-html", "-o", dir.file("out")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "0.159000\n");  // the committed runtime, not 7,000,000 ms
    // An exclusive lock (a commit in progress): wait briefly, then a clear message and exit 3.
    writer.exec("PRAGMA cache_size = 1; CREATE TABLE filler(x); INSERT INTO filler SELECT zeroblob(4000) FROM "
                "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) SELECT i FROM n)");
    auto locked = run_cli({"analyze", db, "--quiet", "--no-html", "-o", dir.file("out")});
    EXPECT_EQ(locked.exit_code, 3) << locked.err;
    EXPECT_NE(locked.err.find(db), std::string::npos) << locked.err;
    EXPECT_NE(locked.err.find("locked"), std::string::npos) << locked.err;
  }
  // A writer killed mid-transaction after spilling pages into the file leaves a hot journal.
  std::string hot = mutated_fixture(dir, "", "hot.db");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SqlFile writer(hot);
    writer.exec("PRAGMA cache_size = 1; BEGIN; UPDATE \"" + table(writer, "kernel_dispatch") +
                "\" SET \"end\" = \"end\" + 1000000000000; CREATE TABLE filler(x); INSERT INTO filler SELECT "
                "zeroblob(4000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < "
                "2000) SELECT i FROM n)");
    _exit(0);  // no rollback, no close: as if killed
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(fs::exists(hot + "-journal"));
  auto r = run_cli({"analyze", hot, "--quiet", "--no-html", "-o", dir.file("out")});
  if (r.exit_code == 0) {
    EXPECT_EQ(r.out, "0.159000\n") << "torn data read";  // SQLite rolled the journal back for the reader
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_NE(r.err.find(hot), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(hot + "-shm"));
}

// Item 6: a WAL database is read without creating files beside it when no writer is connected.
TEST(Robustness, WalDatabaseWithoutWriterGetsNoFilesBesideIt) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "PRAGMA journal_mode = WAL");
  ASSERT_FALSE(fs::exists(db + "-wal"));
  auto r = run_cli({"analyze", db, "--quiet", "--no-html", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0.159000\n");
  EXPECT_FALSE(fs::exists(db + "-shm"));
  EXPECT_FALSE(fs::exists(db + "-wal"));
  // With a connected WAL writer holding an uncommitted change: the committed data.
  SqlFile writer(db);
  writer.exec("BEGIN; UPDATE \"" + table(writer, "kernel_dispatch") + "\" SET \"end\" = \"end\" + 1000000000000");
  r = run_cli({"analyze", db, "--quiet", "--no-html", "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0.159000\n");
}

// Item 12: messages name the value or file and what is wrong, with the documented exit code.
TEST(Robustness, MessagesNameTheValueAndTheProblem) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "");
  auto r = run_cli({"analyze", db, "--no-html", "-o", dir.file("out"), "--ceilings", dir.path().string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find(dir.path().string() + ": cannot read the empirical ceilings file: it is a directory"),
            std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("basic_filebuf"), std::string::npos) << r.err;

  r = run_cli({"analyze", db, "--top", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'-1' is not a whole number of 1 or more"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 600u) << r.err;

  r = run_cli({"frobnicate", db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;

  // A code object whose metadata note claims more bytes than its section has.
  std::string co = read_file(std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co");
  const std::string header("\x07\0\0\0", 4), owner("\x20\0\0\0" "AMDGPU\0", 11);
  std::size_t at = std::string::npos;
  for (std::size_t p = co.find(header); p != std::string::npos; p = co.find(header, p + 1))
    if (co.compare(p + 8, owner.size(), owner) == 0) at = p;
  ASSERT_NE(at, std::string::npos);
  co[at + 4] = '\xf0', co[at + 5] = '\xff', co[at + 6] = '\xff', co[at + 7] = '\x7f';
  std::string bad = dir.file("huge-note.co");
  std::ofstream(bad, std::ios::binary) << co;
  r = run_cli({"resources", bad});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("does not fit"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no NT_AMDGPU_METADATA"), std::string::npos) << r.err;
}

// Item 11: everything in a capture directory is checked before the replay runner (and the GPU) starts.
TEST(Robustness, CaptureDirectoryIsCheckedBeforeTheRunnerStarts) {
  using namespace rpl::capture;
  TempDir dir;
  const fs::path cap = dir.path() / "cap";
  fs::create_directories(cap);
  std::vector<std::byte> memory(4096, std::byte{3});
  Manifest m;
  m.platform = "cuda";
  m.producer = "test";
  m.device_name = "test device";
  m.device_arch = "sm_90";
  m.command = {"app"};
  m.kernel = {"_Z1kPf", "k(float*)", "k", 1};
  m.code_object = write_blob(cap, "code.zst", std::vector<std::byte>(64, std::byte{1}));
  m.code_object_format = "cubin";
  m.arguments = write_blob(cap, "args.zst", std::vector<std::byte>(16, std::byte{2}));
  m.parameters = {{0, 8}, {8, 8}};
  m.geometry = {{1, 1, 1}, {32, 1, 1}, 0};
  Region region;
  region.id = 1;
  region.address = 0x7f0000000000;
  region.size = memory.size();
  region.kind = "device";
  region.before = write_blob(cap, region_blob_file(1, false), memory);
  m.regions.push_back(region);

  // The runner stand-in records that it was started.
  const std::string marker = dir.file("runner-started");
  const std::string runner = dir.file("runner.sh");
  std::ofstream(runner) << "#!/bin/sh\ntouch " << marker << "\nexit 0\n";
  fs::permissions(runner, fs::perms::owner_all);

  struct Case {
    std::string name;
    std::function<void(Manifest&)> change;
    int exit_code;
    std::string message;
  } cases[] = {
      {"traversal", [](Manifest& x) { x.regions[0].before->file = "../../etc/passwd"; }, 4, "leaves the capture directory"},
      {"absolute", [](Manifest& x) { x.arguments.file = "/etc/passwd"; }, 4, "leaves the capture directory"},
      {"checksum", [](Manifest& x) { x.regions[0].before->xxh64 ^= 1; }, 4, "r000001"},
      {"missing", [](Manifest& x) { x.code_object.file = "gone.zst"; }, 3, "gone.zst"},
      {"not zstd", [&](Manifest& x) {
         std::ofstream(cap / "plain.zst") << std::string(64, 'x');
         x.code_object.file = "plain.zst";
       }, 4, "plain.zst"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Manifest changed = m;
    c.change(changed);
    write_manifest(cap, changed);
    auto r = run_cli({"replay", "full-vm", "--capture-dir", cap.string()}, {{"RPL_REPLAY_RUNNER", runner}});
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(marker)) << "the runner started before the capture was checked";
  }
  write_manifest(cap, m);
  auto ok = run_cli({"replay", "full-vm", "--capture-dir", cap.string()}, {{"RPL_REPLAY_RUNNER", runner}});
  EXPECT_TRUE(fs::exists(marker)) << ok.err;  // the checks pass on the intact capture

  // Offsets and sizes from the manifest are checked without overflow.
  nlohmann::json j = to_json(m);
  auto parameter_error = [&](uint64_t offset, uint64_t size) -> std::string {
    j["arguments"]["parameters"] = nlohmann::json::array({{{"offset", offset}, {"size", size}}});
    try {
      manifest_from_json(j, "m.json");
    } catch (const rpl::Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(parameter_error(std::numeric_limits<uint64_t>::max(), 2).find("lies outside the argument buffer"),
            std::string::npos);
  EXPECT_NE(parameter_error(10, 100).find("lies outside the argument buffer"), std::string::npos);
  EXPECT_EQ(parameter_error(8, 8), "");
}

// The fuzz harness's C++ schema checker agrees with python3-jsonschema on real outputs and on broken ones.
TEST(Robustness, CppSchemaCheckerAgreesWithPythonJsonschema) {
  TempDir dir;
  std::string db = mutated_fixture(dir, "");
  ASSERT_EQ(run_cli({"analyze", db, "--no-html", "-o", dir.file("out")}).exit_code, 0);
  rpl::test::SchemaSet schemas(std::string(RPL_SOURCE_DIR) + "/schemas");
  for (const char* name : {"profile", "dag", "analysis", "roofline"}) {
    SCOPED_TRACE(name);
    std::string file = dir.file(std::string("out/") + name + ".json");
    auto doc = nlohmann::json::parse(read_file(file));
    EXPECT_EQ(schemas.validate(name, doc), "");
    EXPECT_EQ(validate_against_schema(name, file), "");
    // Broken the way issue 19 saw it: a number field that became null, and a missing required field.
    nlohmann::json broken = doc;
    broken["schema_version"] = nullptr;
    std::ofstream(dir.file("broken.json")) << broken.dump();
    EXPECT_NE(schemas.validate(name, broken), "");
    EXPECT_NE(validate_against_schema(name, dir.file("broken.json")), "");
  }
  auto roofline = nlohmann::json::parse(read_file(dir.file("out/roofline.json")));
  roofline.erase("status");
  EXPECT_NE(schemas.validate("roofline", roofline), "");
}

// Found by fuzz/fuzz_capture: the reader accepted values its own schema forbids.
TEST(Robustness, ManifestReaderAcceptsOnlyWhatItsSchemaAllows) {
  rpl::capture::Manifest m;
  m.platform = "cuda";
  m.kernel.mangled_name = "_Z1kv";
  m.code_object_format = "cubin";
  nlohmann::json j = rpl::capture::to_json(m);
  EXPECT_NO_THROW(rpl::capture::manifest_from_json(j, "m.json"));
  j["code_object"]["format"] = "icubn";
  EXPECT_THROW(rpl::capture::manifest_from_json(j, "m.json"), rpl::Error);
  j["code_object"]["format"] = "hsaco";
  j["platform"] = "opencl";
  EXPECT_THROW(rpl::capture::manifest_from_json(j, "m.json"), rpl::Error);
  j["platform"] = "rocm";
  EXPECT_NO_THROW(rpl::capture::manifest_from_json(j, "m.json"));
  j["kernel"]["dispatch_index"] = 0u;
  EXPECT_THROW(rpl::capture::manifest_from_json(j, "m.json"), rpl::Error);
  j["kernel"]["dispatch_index"] = 1u;
  j["device"]["ordinal"] = -1;
  EXPECT_THROW(rpl::capture::manifest_from_json(j, "m.json"), rpl::Error);
}

// Found by fuzz/fuzz_code_object (UBSan: a pointer formed past a token without a colon): such a token is
// reported as unreadable, naming the line.
TEST(Robustness, CuobjdumpTokenWithoutColonIsReported) {
  const std::string text = "Resource usage:\n Function _Z1kv:\n  REG:8 STACK SHARED:0\n";
  try {
    rpl::collectors::nvidia::parse_resource_usage(text, "sm_90", "app");
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read \"STACK\""), std::string::npos) << e.what();
  }
}

// Found by fuzz/fuzz_att (UBSan: 1e108 converted to an integer CU index): such events are skipped.
TEST(Robustness, AttOccupancyIgnoresImplausibleCuIndices) {
  std::vector<std::string> notes;
  auto doc = nlohmann::json::parse(R"json({"0": [[50, 1e108, 0, 0, 1, 0], [60, -3, 0, 0, 1, 0],
                                                [100, 0, 0, 1, 1, 0], [300, 0, 0, 1, 0, 0]]})json");
  auto occupancy = rpl::analysis::att_occupancy(doc, notes);
  ASSERT_TRUE(occupancy.has_value());
  EXPECT_EQ(occupancy->cus, 1u);
}
