// `rocm-perf capture` and `rocm-perf replay` on bad inputs, and the replay output through a stand-in runner (the
// real runners need a GPU: tests/test_replay_gpu.cpp). No GPU is needed here.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "capture/manifest.hpp"
#include "capture/replay_report.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

// A small but complete capture directory (blobs included).
void write_capture(const std::filesystem::path& dir) {
  capture::Manifest m;
  m.platform = "cuda";
  m.producer = "test";
  m.created_utc = "2026-11-24T00:00:00Z";
  m.device_name = "NVIDIA H100 80GB HBM3";
  m.device_arch = "sm_90";
  m.kernel = {"_Z5chasePPK4NodePyii", "chase(Node const* const*, unsigned long long*, int, int)", "chase", 3};
  std::vector<std::byte> bytes(64, std::byte{1});
  m.code_object = capture::write_blob(dir, "code/kernel.cubin.zst", bytes);
  m.code_object_format = "cubin";
  m.arguments = capture::write_blob(dir, "arguments.bin.zst", std::span(bytes).first(24));
  m.parameters = {{0, 8}, {8, 8}, {16, 4}, {20, 4}};
  capture::Region r;
  r.address = 0x7f0000000000, r.size = 64, r.kind = "device";
  r.before = capture::write_blob(dir, capture::region_blob_file(0, false), bytes);
  r.after = capture::write_blob(dir, capture::region_blob_file(0, true), bytes);
  m.regions.push_back(r);
  capture::write_manifest(dir, m);
}

namespace fs = std::filesystem;

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

TEST(CliCapture, BadRegexIsAUsageError) {
  test::TempDir tmp;
  auto r = test::run_cli({"capture", "--platform", "cuda", "--kernel", "chase(", "-o", tmp.file("cap"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, "--kernel: invalid regular expression 'chase('")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.file("cap")));  // nothing created for a bad command
}

TEST(CliCapture, MissingApplication) {
  test::TempDir tmp;
  auto r = test::run_cli({"capture", "--platform", "cuda", "-o", tmp.file("cap"), "--", tmp.file("no-such-app")});
  EXPECT_EQ(r.exit_code, 9) << r.err;
  EXPECT_TRUE(mentions(r.err, tmp.file("no-such-app"))) << r.err;
}

TEST(CliCapture, RefusesANonEmptyDirectory) {
  test::TempDir tmp;
  std::filesystem::create_directories(tmp.file("cap"));
  std::ofstream(tmp.file("cap/precious.txt")) << "user data\n";
  auto r = test::run_cli({"capture", "--platform", "cuda", "-o", tmp.file("cap"), "--", "/bin/true"},
                         {{"RPL_CUDA_CAPTURE", "/bin/true"}});
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_TRUE(mentions(r.err, "is not empty")) << r.err;
  EXPECT_EQ(test::read_file(tmp.file("cap/precious.txt")), "user data\n");
}

TEST(CliCapture, ApplicationWithoutCudaCapturesNothing) {
  // /bin/true never loads the CUDA driver, so the capture library is never injected: exit 11, said why.
  test::TempDir tmp;
  auto r = test::run_cli({"capture", "--platform", "cuda", "-o", tmp.file("cap"), "--", "/bin/true"},
                         {{"RPL_CUDA_CAPTURE", "/bin/true"}});  // any readable file: it is never loaded
  EXPECT_EQ(r.exit_code, 11) << r.err;
  EXPECT_TRUE(mentions(r.err, "no capture written")) << r.err;
}

TEST(CliCapture, RocmGoesThroughTheHsaToolsLibrary) {
  // On ROCm the capture library is handed to ROCr as HSA_TOOLS_LIB; /bin/true never starts ROCr, so nothing is
  // captured: exit 11, said why. (Unvalidated on AMD hardware: no AMD GPU is available to the project.)
  test::TempDir tmp;
  auto r = test::run_cli({"capture", "--platform", "rocm", "-o", tmp.file("cap"), "--", "/bin/true"},
                         {{"RPL_HSA_CAPTURE", "/bin/true"}});
  EXPECT_EQ(r.exit_code, 11) << r.err;
  EXPECT_TRUE(mentions(r.err, "no capture written")) << r.err;
  auto missing = test::run_cli({"capture", "--platform", "rocm", "-o", tmp.file("cap2"), "--", "/bin/true"},
                               {{"RPL_HSA_CAPTURE", tmp.file("no-such-lib.so")}});
  EXPECT_EQ(missing.exit_code, 8) << missing.err;
  EXPECT_TRUE(mentions(missing.err, "RPL_HSA_CAPTURE=" + tmp.file("no-such-lib.so"))) << missing.err;
}

TEST(CliReplay, MissingCaptureDirectory) {
  test::TempDir tmp;
  for (const char* mode : {"reserve-check", "full-vm"}) {
    auto r = test::run_cli({"replay", mode, "--capture-dir", tmp.file("nope")});
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(mentions(r.err, tmp.file("nope"))) << r.err;
  }
  std::filesystem::create_directories(tmp.file("empty"));
  auto r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("empty")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(mentions(r.err, "manifest.json is missing")) << r.err;
}

TEST(CliReplay, CorruptManifest) {
  test::TempDir tmp;
  write_capture(tmp.path());
  std::string text = test::read_file(tmp.file("manifest.json"));
  std::ofstream(tmp.file("manifest.json"), std::ios::trunc) << text.substr(0, text.size() / 3);
  auto r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.path().string()});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_TRUE(mentions(r.err, "not valid JSON")) << r.err;
}

TEST(CliReplay, MissingCodeObjectAndRunner) {
  test::TempDir tmp;
  write_capture(tmp.path());
  auto r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.path().string(), "--code-object", tmp.file("x.cubin")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(mentions(r.err, "x.cubin")) << r.err;
  r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.path().string()}, {{"RPL_REPLAY_RUNNER", tmp.file("nope")}});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_TRUE(mentions(r.err, "RPL_REPLAY_RUNNER")) << r.err;
  r = test::run_cli({"replay", "full-vm", "--iterations", "0", "--capture-dir", tmp.path().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// A stand-in runner: writes a prepared document to --result and exits with a prepared status.
std::string fake_runner(const test::TempDir& tmp, const capture::ReplayReport& report, int status) {
  std::ofstream(tmp.file("doc.json")) << capture::to_json(report).dump();
  std::string path = tmp.file("fake_runner.sh");
  std::ofstream(path) << "#!/bin/sh\n"
                         "echo \"$@\" > '" << tmp.file("args.txt") << "'\n"
                         "while [ $# -gt 0 ]; do [ \"$1\" = --result ] && cp '" << tmp.file("doc.json") << "' \"$2\"; shift; done\n"
                         "exit " << status << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

capture::ReplayReport sample_report(const std::string& capture_dir) {
  capture::ReplayReport r;
  r.mode = capture::ReplayMode::FullVm;
  r.capture_dir = capture_dir;
  r.platform = "cuda";
  r.device_name = "NVIDIA H100 80GB HBM3";
  r.runner = "fake";
  r.kernel = {"_Z5chasePPK4NodePyii", "chase(Node const* const*, unsigned long long*, int, int)", "chase", 3};
  r.granularity = 2097152;
  r.reservation_alignment = 33554432;
  r.ranges = {{0x7f0000000000, 2097152, "exact", 0, ""}};
  r.regions = {{0, 0x7f0000000000, 64, "device", "", "exact", 0x7f0000000000}};
  r.iterations = 4;
  r.cache = capture::CacheState::Cold;
  r.restore_source = "device";
  r.gpu_time = capture::time_stats({1000, 1100, 1200, 1300});
  r.verification.status = "mismatch";
  r.verification.regions_compared = 1;
  r.verification.bytes_compared = 64;
  r.verification.bytes_differing = 5;
  r.verification.mismatched_bytes = 5;
  r.verification.replays = 2;
  capture::RegionVerdict verdict;
  verdict.status = "mismatch";
  verdict.bytes_differing = verdict.mismatched_bytes = 5;
  verdict.first_difference = 8;
  r.verification.differing = {{0, 0x7f0000000000, 64, "device", "", verdict}};
  return r;
}

TEST(CliReplay, RunnerDocumentPrintedAndItsExitCodeKept) {
  test::TempDir tmp;
  write_capture(tmp.path() / "cap");
  std::string runner = fake_runner(tmp, sample_report(tmp.file("cap")), 13);
  auto r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("cap"), "--iterations", "4", "--no-recopy",
                          "--json"}, {{"RPL_REPLAY_RUNNER", runner}});
  EXPECT_EQ(r.exit_code, 13) << r.err;
  std::ofstream(tmp.file("out.json")) << r.out;
  EXPECT_EQ(test::validate_against_schema("replay", tmp.file("out.json")), "");
  EXPECT_TRUE(mentions(test::read_file(tmp.file("args.txt")), "full-vm --capture-dir " + tmp.file("cap")));
  EXPECT_TRUE(mentions(test::read_file(tmp.file("args.txt")), "--iterations 4 --no-recopy"));
  EXPECT_TRUE(mentions(test::read_file(tmp.file("args.txt")), "--cache warm --verify-replays 2 --warmup-ms 25")) << "the defaults";
  r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("cap"), "--cache", "cold", "--verify-replays", "4",
                     "--warmup-ms", "0.5"},
                    {{"RPL_REPLAY_RUNNER", runner}});
  EXPECT_EQ(r.exit_code, 13);
  EXPECT_TRUE(mentions(test::read_file(tmp.file("args.txt")), "--cache cold --verify-replays 4 --warmup-ms 0.5"));
  EXPECT_TRUE(mentions(r.out, "MISMATCH: 5 bytes in 1 of 1 regions")) << r.out;
  EXPECT_TRUE(mentions(r.out, "median 1.150 us")) << r.out;
  EXPECT_TRUE(mentions(r.out, "cache cold (L2 flushed before each launch)")) << r.out;
  EXPECT_TRUE(mentions(r.out, "wall ")) << r.out;
  r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("cap"), "--cache", "lukewarm"}, {{"RPL_REPLAY_RUNNER", runner}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("cap"), "--warmup-ms", "-1"}, {{"RPL_REPLAY_RUNNER", runner}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, "--warmup-ms")) << r.err;
}

// The runner's result file is made under TMPDIR and removed after it is read; a TMPDIR that is not a folder is
// reported by name before the runner starts.
TEST(CliReplay, ResultFileFollowsTmpdir) {
  test::TempDir tmp;
  write_capture(tmp.path() / "cap");
  fs::create_directories(tmp.path() / "own-tmp");
  std::string runner = fake_runner(tmp, sample_report(tmp.file("cap")), 13);
  auto r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("cap")},
                         {{"RPL_REPLAY_RUNNER", runner}, {"TMPDIR", tmp.file("own-tmp")}});
  EXPECT_EQ(r.exit_code, 13) << r.err;
  EXPECT_TRUE(mentions(test::read_file(tmp.file("args.txt")), "--result " + tmp.file("own-tmp") + "/rocm-perf-replay-"))
      << test::read_file(tmp.file("args.txt"));
  EXPECT_TRUE(mentions(r.out, "MISMATCH")) << "the document written there was read: " << r.out;
  EXPECT_TRUE(fs::is_empty(tmp.path() / "own-tmp")) << "the result file is removed";
  fs::remove(tmp.file("args.txt"));
  r = test::run_cli({"replay", "full-vm", "--capture-dir", tmp.file("cap")},
                    {{"RPL_REPLAY_RUNNER", runner}, {"TMPDIR", tmp.file("absent")}});
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_TRUE(mentions(r.err, "TMPDIR=" + tmp.file("absent"))) << r.err;
  EXPECT_FALSE(fs::exists(tmp.file("args.txt"))) << "the runner did not start";
}

TEST(CliReplay, RunnerFailureWithoutDocument) {
  test::TempDir tmp;
  write_capture(tmp.path() / "cap");
  std::string path = tmp.file("crash.sh");
  std::ofstream(path) << "#!/bin/sh\necho 'cuInit failed: no GPU' >&2\nexit 8\n";
  chmod(path.c_str(), 0755);
  auto r = test::run_cli({"replay", "reserve-check", "--capture-dir", tmp.file("cap")}, {{"RPL_REPLAY_RUNNER", path}});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_TRUE(mentions(r.err, "cuInit failed: no GPU")) << r.err;
  EXPECT_TRUE(mentions(r.err, "exited with status 8")) << r.err;
}

}  // namespace
}  // namespace rpl
