// analyze on a terminal (issue 32): each step of a long run is named on the progress line (reading, the
// analyses, writing the outputs and the --slack-db rows), and none of it reaches a pipe or --quiet.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/process.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/tmpdir.hpp"

using namespace rpl;
using namespace rpl::test;

namespace {

// Runs `rocm-perf ARGS` with a terminal as stdout and stderr (util-linux `script`); returns what the terminal
// received.
std::string on_a_terminal(const TempDir& dir, const std::string& args) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/script", "-qec", std::string(RPL_CLI_PATH) + " analyze " + args, "/dev/null"};
  spec.stdout_file = dir.file("terminal");
  spec.stderr_file = dir.file("script-stderr");
  spec.env = {{"TERM", "xterm"}};
  spec.timeout_s = 60;
  const ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.ok()) << r.describe() << read_file(dir.file("script-stderr"));
  return read_file(dir.file("terminal"));
}

}  // namespace

TEST(AnalyzeProgress, EveryStepIsNamedOnATerminal) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no /usr/bin/script (util-linux) to give a terminal";
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  const std::string shown = on_a_terminal(
      dir, db + " -o " + dir.file("out") + " --slack-db " + dir.file("slack.db") + " --what-if 'consume=0.5'");
  for (const char* step : {"reading ", "kernel statistics", "critical path", "idle attribution", "1 what-if scenario(s)",
                           "writing the outputs to", "node rows to"})
    EXPECT_NE(shown.find(step), std::string::npos) << step << " missing from the terminal:\n" << shown;
}

// --jobs 2: the progress line still comes from one thread, one line: the reading (the rows of the databases read so
// far, where a read takes long enough to be redrawn), then the analyses side by side; nothing of it on a pipe.
TEST(AnalyzeProgress, ParallelStepsAreNamedOnOneLine) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "no /usr/bin/script (util-linux) to give a terminal";
  TempDir dir;
  FixtureSpec a, b;
  a.file_name = "a.db", b.file_name = "b.db";
  b.guid = "0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5c", b.pid = 4343;
  const std::string dbs = make_fixture_db(dir.path(), a) + " " + make_fixture_db(dir.path(), b);
  const std::string shown = on_a_terminal(dir, "--jobs 2 " + dbs + " -o " + dir.file("out"));
  for (const char* step : {"reading 2 database(s)", "kernel statistics, critical path, idle attribution, 2 at a time",
                           "writing the outputs to"})
    EXPECT_NE(shown.find(step), std::string::npos) << step << " missing from the terminal:\n" << shown;
  auto piped = run_cli({"analyze", "--jobs", "2", dir.file("a.db"), dir.file("b.db"), "-o", dir.file("out2")});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.err.find("\033[K"), std::string::npos) << piped.err;
  const std::string quiet = on_a_terminal(dir, "--jobs 2 " + dbs + " -o " + dir.file("out3") + " --quiet");
  EXPECT_EQ(quiet.find("\033[K"), std::string::npos) << quiet;
}

TEST(AnalyzeProgress, NothingOnAPipeOrWithQuiet) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", db, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("critical path\r"), std::string::npos);
  EXPECT_EQ(r.err.find("\033[K"), std::string::npos) << r.err;
  const std::string quiet = on_a_terminal(dir, db + " -o " + dir.file("out2") + " --quiet");
  EXPECT_EQ(quiet.find("\033[K"), std::string::npos) << quiet;
}

// --debug logs each step's CPU and wall time when it ends (where a long run spends its time; issue 32), on a
// pipe too, and without --debug nothing of it.
TEST(AnalyzeProgress, DebugLogsEachStepsTime) {
  TempDir dir;
  const std::string db = make_fixture_db(dir.path());
  auto r = run_cli({"analyze", db, "-o", dir.file("out"), "--debug"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* step : {"debug: reading 1 database(s): ", "kernel statistics: ", "critical path: ",
                           "idle attribution: ", "writing the outputs to "})
    EXPECT_NE(r.err.find(step), std::string::npos) << step << " missing:\n" << r.err;
  EXPECT_NE(r.err.find(" s CPU, "), std::string::npos) << r.err;
  auto plain = run_cli({"analyze", db, "-o", dir.file("out2")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find(" s CPU, "), std::string::npos) << plain.err;
}
