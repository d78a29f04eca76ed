// `rocm-perf capture --all-kernels` without a GPU: the capture library's sweep bookkeeping (which launch is taken,
// the --max-kernels budget, outcomes), the index built from its log, validated against its schema, and the CLI
// around it (a stand-in application writes the log the capture library would).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "app/capture_sweep.hpp"
#include "capture/capture_sweep.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using capture::SweepBook;

TEST(SweepBook, FirstLaunchOfEachKernelOnceAndOnlyOnce) {
  SweepBook book(0, 1);
  EXPECT_EQ(book.on_launch("_Z1av", false), SweepBook::Verdict::Capture);
  EXPECT_EQ(book.entry("_Z1av")->dir, "k0001");
  EXPECT_EQ(book.on_launch("_Z1av", false), SweepBook::Verdict::Ignore);  // being captured
  book.finish("_Z1av", true, "", 4096);
  EXPECT_EQ(book.on_launch("_Z1av", false), SweepBook::Verdict::Ignore);  // decided
  EXPECT_EQ(book.on_launch("_Z1bv", false), SweepBook::Verdict::Capture);
  book.finish("_Z1bv", false, "the captured launch itself failed", 0);
  auto decided = book.take_decided();
  ASSERT_EQ(decided.size(), 2u);
  EXPECT_EQ(decided[0].status, "captured");
  EXPECT_EQ(decided[0].region_bytes, 4096u);
  EXPECT_EQ(decided[1].status, "failed");
  EXPECT_EQ(decided[1].dir, "");  // a failed capture's directory is removed
  EXPECT_EQ(decided[1].reason, "the captured launch itself failed");
  EXPECT_TRUE(book.take_decided().empty());
  EXPECT_TRUE(book.close().empty());
}

TEST(SweepBook, DispatchGraphCaptureAndBudget) {
  SweepBook book(2, 2);  // the second launch of each kernel, two kernels at most
  EXPECT_EQ(book.on_launch("a", false), SweepBook::Verdict::Wait);
  EXPECT_EQ(book.on_launch("g", true), SweepBook::Verdict::Wait);  // inside stream capture: not counted
  EXPECT_EQ(book.on_launch("a", true), SweepBook::Verdict::Wait);
  EXPECT_EQ(book.on_launch("a", false), SweepBook::Verdict::Capture);
  book.finish("a", true, "", 1);
  EXPECT_EQ(book.on_launch("b", false), SweepBook::Verdict::Wait);
  EXPECT_EQ(book.on_launch("b", false), SweepBook::Verdict::Capture);
  book.finish("b", true, "", 1);
  EXPECT_TRUE(book.budget_spent());
  EXPECT_EQ(book.on_launch("c", false), SweepBook::Verdict::Wait);
  EXPECT_EQ(book.on_launch("c", false), SweepBook::Verdict::Ignore);  // its launch came, the budget was spent
  EXPECT_EQ(book.on_launch("d", false), SweepBook::Verdict::Wait);
  auto decided = book.take_decided();
  ASSERT_EQ(decided.size(), 3u);
  EXPECT_EQ(decided[2].status, "skipped");
  EXPECT_EQ(decided[2].reason, "--max-kernels 2 reached before its launch");
  auto rest = book.close();  // g: only inside graph capture; d: one launch of the two asked for
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].mangled, "d");
  EXPECT_EQ(rest[0].status, "not_captured");
  EXPECT_EQ(rest[0].reason, "launched 1 time(s), fewer than the 2 asked for");
  EXPECT_EQ(rest[1].mangled, "g");
  EXPECT_EQ(rest[1].reason, "launched only inside CUDA graph stream capture (1 time(s)): recorded, not run");
  EXPECT_EQ(book.entry("g")->order, 2u);
}

TEST(SweepBook, LogLinesRoundTrip) {
  capture::SweepEntry e{3, "_Z3fooPf", "k0003", "captured", "", 1, 1 << 20};
  auto back = capture::sweep_entry_from_json(capture::sweep_entry_json(e));
  EXPECT_EQ(back.order, 3u);
  EXPECT_EQ(back.dir, "k0003");
  EXPECT_EQ(back.region_bytes, uint64_t{1} << 20);
  auto bad = capture::sweep_entry_json(e);
  bad["status"] = "maybe";
  EXPECT_THROW(capture::sweep_entry_from_json(bad), std::runtime_error);
}

void write_log(const std::string& path, const std::vector<capture::SweepEntry>& entries) {
  std::ofstream out(path);
  for (const auto& e : entries) out << capture::sweep_entry_json(e).dump() << "\n";
}

TEST(SweepIndex, BuiltFromTheLogInLaunchOrderAndValid) {
  test::TempDir tmp;
  write_log(tmp.file("log.jsonl"),
            {{2, "_Z1bv", "", "failed", "the cubin holding _Z1bv could not be had: loaded by cuModuleLoadData (PTX)", 1, 0},
             {1, "_Z1av", "k0001", "captured", "", 1, 100},
             {3, "_Z1cv", "", "skipped", "--max-kernels 2 reached before its launch", 1, 0}});
  auto entries = app::read_sweep_log(tmp.file("log.jsonl"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].mangled, "_Z1av");
  auto index = app::sweep_index(entries, {{"python3", "train.py"}, ".*", 1, 2, "exited with status 0"});
  EXPECT_EQ(index["summary"]["distinct_kernels"], 3);
  EXPECT_EQ(index["summary"]["captured"], 1);
  EXPECT_EQ(index["summary"]["failed"], 1);
  EXPECT_EQ(index["summary"]["skipped"], 1);
  EXPECT_EQ(index["kernels"][0]["demangled"], "a()");
  EXPECT_TRUE(index["kernels"][1]["dir"].is_null());
  std::ofstream(tmp.file("index.json")) << index.dump(2);
  EXPECT_EQ(test::validate_against_schema("capture-index", tmp.file("index.json")), "");
  auto broken = index;
  broken["kernels"][0]["status"] = "maybe";
  std::ofstream(tmp.file("broken.json")) << broken.dump(2);
  EXPECT_NE(test::validate_against_schema("capture-index", tmp.file("broken.json")), "");
}

TEST(SweepIndex, MalformedLogNamesFileAndLine) {
  test::TempDir tmp;
  std::ofstream(tmp.file("log.jsonl")) << capture::sweep_entry_json({1, "a", "k0001", "captured", "", 1, 1}).dump()
                                       << "\n{\"order\": 2}\n";
  try {
    app::read_sweep_log(tmp.file("log.jsonl"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputInvalid);
    EXPECT_NE(std::string(e.what()).find("log.jsonl:2: malformed sweep entry"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(app::read_sweep_log(tmp.file("absent.jsonl")).empty());
}

// A stand-in for an application under the capture library: it writes the sweep log into $RPL_CAPTURE_DIR, as
// the library would, and checks the environment `rocm-perf capture --all-kernels` gives it.
std::string fake_app(const test::TempDir& tmp, const std::string& lines) {
  std::string path = tmp.file("app.sh");
  std::ofstream(path) << "#!/bin/sh\n"
                         "[ \"$RPL_CAPTURE_ALL\" = 1 ] && [ \"$RPL_CAPTURE_MAX_KERNELS\" = 5 ] || exit 3\n"
                         "cat > \"$RPL_CAPTURE_DIR/sweep_log.jsonl\" <<'EOF'\n" << lines << "EOF\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST(CliCaptureSweep, WritesTheIndexAndPrintsIt) {
  test::TempDir tmp;
  std::string lines = capture::sweep_entry_json({1, "_Z1av", "k0001", "captured", "", 1, 64}).dump() + "\n" +
                      capture::sweep_entry_json({2, "_Z1bv", "", "failed", "its image was not kept", 1, 0}).dump() + "\n";
  auto r = test::run_cli({"capture", "--platform", "cuda", "--all-kernels", "--max-kernels", "5", "--json", "-o",
                          tmp.file("sweep"), "--", fake_app(tmp, lines)},
                         {{"RPL_CUDA_CAPTURE", "/bin/true"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto printed = nlohmann::json::parse(r.out);
  EXPECT_EQ(printed["summary"]["captured"], 1);
  EXPECT_EQ(printed["kernels"][1]["reason"], "its image was not kept");
  EXPECT_EQ(test::validate_against_schema("capture-index", tmp.file("sweep/index.json")), "");
  // The table form names what was not captured and why.
  auto t = test::run_cli({"capture", "--platform", "cuda", "--all-kernels", "--max-kernels", "5", "-o",
                          tmp.file("sweep2"), "--", fake_app(tmp, lines)},
                         {{"RPL_CUDA_CAPTURE", "/bin/true"}});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("2 distinct kernels: 1 captured, 1 failed"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("failed b(): its image was not kept"), std::string::npos) << t.out;
}

TEST(CliCaptureSweep, NothingCapturedIsExit11AndBadCombinationsAreUsageErrors) {
  test::TempDir tmp;
  std::string lines = capture::sweep_entry_json({1, "_Z1av", "", "failed", "no cubin", 1, 0}).dump() + "\n";
  auto r = test::run_cli({"capture", "--platform", "cuda", "--all-kernels", "--max-kernels", "5", "-o",
                          tmp.file("sweep"), "--", fake_app(tmp, lines)},
                         {{"RPL_CUDA_CAPTURE", "/bin/true"}});
  EXPECT_EQ(r.exit_code, 11) << r.err;
  EXPECT_NE(r.err.find("no kernel captured"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(tmp.file("sweep/index.json")));  // still written: it says why
  auto u = test::run_cli({"capture", "--platform", "cuda", "--max-kernels", "3", "-o", tmp.file("x"), "--", "/bin/true"});
  EXPECT_EQ(u.exit_code, 2) << u.err;
  auto rocm = test::run_cli({"capture", "--platform", "rocm", "--all-kernels", "-o", tmp.file("y"), "--", "/bin/true"},
                            {{"RPL_HSA_CAPTURE", "/bin/true"}});
  EXPECT_EQ(rocm.exit_code, 2) << rocm.err;
  EXPECT_NE(rocm.err.find("NVIDIA (CUDA) only"), std::string::npos) << rocm.err;
}

}  // namespace
}  // namespace rpl

namespace rpl {
namespace {

// The GPU sweep's table tool (bench/capture-sweep/sweep_table.py) on fake inputs: in-app medians matched by
// name and geometry, the timed selection, status counts, reasons and the warm/cold band.
TEST(CaptureSweepBench, TableToolOnFakeInputs) {
  std::string script = std::string(RPL_SOURCE_DIR) + "/bench/capture-sweep/test_sweep_table.py";
  std::string cmd = "python3 " + script + " > /dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "run " << script << " for details";
}

}  // namespace
}  // namespace rpl
