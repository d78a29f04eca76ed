// rpl_replay_hsa without an AMD GPU. Its error paths against the real world (no HSA runtime; this machine's
// runtime, which has no virtual-memory API or no GPU), then its whole flow against the test double
// tests/doubles/fake_hsa_runtime.cpp: steering, exact-address reservation, relocation, restore, a kernel
// found by name among several, AQL packet publishing, timing, verification, --no-recopy, --code-object.
// Captures are synthesized here with the real manifest writer and the committed gfx90a code object (two of
// its kernels are emulated by the double). What the double cannot show: anything about real ROCr/GPU
// behaviour (docs/capture-replay-amd.md: unvalidated on AMD hardware).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "capture/manifest.hpp"
#include "collectors/amd/amd_launch_record.hpp"
#include "support/process.hpp"
#include "testing/binary_files.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

namespace fs = std::filesystem;
using namespace collectors::amd;

#ifdef RPL_REPLAY_HSA
const std::string kCodeObject = std::string(RPL_SOURCE_DIR) + "/tests/data/hip/kernels-gfx90a.co";
// Far from where this process or the runner map anything (heap low, libraries and stacks near 0x7f...).
constexpr uint64_t kIn = 0x5e00'0000'0000, kOut = 0x5e00'0020'0000;

std::vector<std::byte> floats(const std::vector<float>& v) {
  std::vector<std::byte> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> as_floats(const std::string& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

capture::Region region(const fs::path& dir, uint64_t id, uint64_t address, const std::vector<float>& before,
                       const std::vector<float>& after) {
  capture::Region r;
  r.id = id;
  r.address = address;
  r.size = before.size() * 4;
  r.kind = "pool";
  r.before = capture::write_blob(dir, capture::region_blob_file(id, false), floats(before));
  r.after = capture::write_blob(dir, capture::region_blob_file(id, true), floats(after));
  return r;
}

struct Kernel {
  std::string mangled, symbol;
  uint32_t kernarg_size;
  uint32_t group;
};
const Kernel kTileSum{"_Z8tile_sumPKfPf", "_Z8tile_sumPKfPf.kd", 16, 1024};
const Kernel kAddOne{"_Z7add_onePfi", "_Z7add_onePfi.kd", 12, 0};

// A capture of `kernel` over `regions` with the given argument bytes and a 1-D launch of `items` work-items.
void write_capture(const fs::path& dir, const Kernel& kernel, std::vector<capture::Region> regions,
                   const std::vector<std::byte>& args, uint32_t items, uint16_t group, const std::string& agent = "gfx90a") {
  capture::Manifest m;
  m.platform = "rocm";
  m.producer = "test_hsa_replay_runner";
  m.created_utc = "2026-11-24T00:00:00Z";
  m.kernel.match_regex = kernel.mangled;
  m.code_object = capture::write_blob(dir, "code/kernel.hsaco.zst", test::read_binary(kCodeObject));
  m.arguments = capture::write_blob(dir, "arguments.bin.zst", args);
  m.parameters = {{0, args.size()}};
  m.regions = std::move(regions);
  AmdLaunchRecord r;
  r.dispatch.geometry.dimensions = 1;
  r.dispatch.geometry.grid = {items, 1, 1};
  r.dispatch.geometry.workgroup = {group, 1, 1};
  r.dispatch.geometry.group_segment_size = kernel.group;
  r.symbol_name = kernel.symbol;
  r.mangled = kernel.mangled;
  r.demangled = kernel.mangled;
  r.kernarg_size = kernel.kernarg_size;
  r.static_group_segment = kernel.group;
  r.agent_name = agent;
  r.isa_name = "amdgcn-amd-amdhsa--gfx90a";
  std::vector<AmdRegionDetail> details;
  for (const auto& g : m.regions) details.push_back({g.id, Placement::DeviceCoarse, 4096});
  fill_launch(m, r, details);
  capture::write_manifest(dir, m);
}

std::vector<std::byte> pointer_args(std::initializer_list<uint64_t> pointers, std::optional<int32_t> tail = {}) {
  std::vector<std::byte> b;
  for (uint64_t p : pointers) {
    const auto* raw = reinterpret_cast<const std::byte*>(&p);
    b.insert(b.end(), raw, raw + 8);
  }
  if (tail) {
    const auto* raw = reinterpret_cast<const std::byte*>(&*tail);
    b.insert(b.end(), raw, raw + 4);
  }
  return b;
}

// tile_sum over two work-groups: out[b] = sum of in[256 b .. 256 b + 255].
void write_tile_sum_capture(const fs::path& dir, bool correct_after = true) {
  std::vector<float> in(512), out_before(2, -1.0f), out_after(2, 0.0f);
  for (int i = 0; i < 512; ++i) in[i] = float(i % 17) * 0.5f;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 256; ++i) out_after[b] += in[b * 256 + i];
  if (!correct_after) out_after[1] = std::nextafter(out_after[1], 1e30f);  // differs in its lowest byte
  write_capture(dir, kTileSum, {region(dir, 0, kIn, in, in), region(dir, 1, kOut, out_before, out_after)},
                pointer_args({kIn, kOut}), 512, 256);
}

struct RunnerRun {
  int exit_code = -1;
  std::string err;
  nlohmann::json doc;
  std::string result_file;
};

RunnerRun run_runner(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& env,
               const test::TempDir& tmp) {
  ProcessSpec spec;
  spec.argv = {RPL_REPLAY_HSA};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.argv.insert(spec.argv.end(), {"--result", tmp.file("result.json")});
  spec.env = env;
  spec.stdout_file = tmp.file("stdout");
  spec.stderr_file = tmp.file("stderr");
  spec.timeout_s = 60;
  const ProcessResult p = run_process(spec);
  RunnerRun r;
  r.exit_code = p.signal ? 128 + p.signal : p.exit_code;
  r.err = test::read_file(tmp.file("stderr"));
  r.result_file = tmp.file("result.json");
  if (fs::exists(r.result_file)) r.doc = nlohmann::json::parse(test::read_file(r.result_file));
  EXPECT_EQ(test::read_file(tmp.file("stdout")), "") << "the runner's document goes to --result, never stdout";
  return r;
}

std::vector<std::pair<std::string, std::string>> fake(const std::string& mode = "") {
  return {{"RPL_HSA_RUNTIME", RPL_FAKE_HSA_RUNTIME}, {"FAKE_HSA", mode}};
}

void expect_valid_document(const RunnerRun& r) {
  ASSERT_TRUE(fs::exists(r.result_file)) << r.err;
  EXPECT_EQ(test::validate_against_schema("replay", r.result_file), "");
  EXPECT_EQ(r.doc.at("platform"), "rocm");
}

// ---- the real world ---------------------------------------------------------------------------------

TEST(HsaReplayRunner, NoHsaRuntimeIsAClearErrorWithExitCode8) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string()},
                           {{"RPL_HSA_RUNTIME", "/nonexistent/libhsa-runtime64.so.1"}}, tmp);
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("cannot load the HSA runtime /nonexistent/libhsa-runtime64.so.1"), std::string::npos) << r.err;
  expect_valid_document(r);
}

TEST(HsaReplayRunner, ThisMachinesRuntimeCannotReplayAndSaysWhy) {
  // Debian's ROCm 5.2.3 runtime has no hsa_amd_vmem_*; a newer one without a GPU fails in hsa_init; a
  // machine without the package cannot load it. Each is exit code 8 with the reason spelled out.
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const RunnerRun r = run_runner({"reserve-check", "--capture-dir", (tmp.path() / "cap").string()}, {}, tmp);
  EXPECT_EQ(r.exit_code, 8) << r.err;
  const bool explained = r.err.find("has no virtual-memory API") != std::string::npos ||
                         r.err.find("hsa_init failed") != std::string::npos ||
                         r.err.find("cannot load the HSA runtime") != std::string::npos;
  EXPECT_TRUE(explained) << r.err;
}

TEST(HsaReplayRunner, BadArgumentsAreUsageErrors) {
  test::TempDir tmp;
  EXPECT_EQ(run_runner({"replay-everything"}, {}, tmp).exit_code, 2);
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", tmp.path().string(), "--iterations", "0"}, {}, tmp);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--iterations 0"), std::string::npos) << r.err;
  // The runners' shared parser: whole numbers within each option's range, integers as decimal digits only.
  for (const std::vector<std::string> bad : {std::vector<std::string>{"--iterations", "1e3"}, {"--iterations", "-1"},
                                             {"--iterations", "1000001"}, {"--verify-replays", "101"},
                                             {"--verify-replays", ""}, {"--warmup-ms", "5ms"}, {"--warmup-ms", "60001"},
                                             {"--warmup-ms", "nan"}}) {
    std::vector<std::string> args = {"full-vm", "--capture-dir", tmp.path().string()};
    args.insert(args.end(), bad.begin(), bad.end());
    const RunnerRun b = run_runner(args, {}, tmp);
    EXPECT_EQ(b.exit_code, 2) << bad[0] << " " << bad[1];
    EXPECT_NE(b.err.find(bad[0] + " " + bad[1] + ":"), std::string::npos) << b.err;
  }
  const RunnerRun missing = run_runner({"full-vm", "--capture-dir", (tmp.path() / "none").string()}, fake(), tmp);
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
}

// ---- against the fake runtime -------------------------------------------------------------------------

TEST(HsaReplayRunner, NoGpuAndAFailingInitAreClearErrors) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const std::vector<std::string> args = {"full-vm", "--capture-dir", (tmp.path() / "cap").string()};
  const RunnerRun init = run_runner(args, fake("init-fails"), tmp);
  EXPECT_EQ(init.exit_code, 8);
  EXPECT_NE(init.err.find("hsa_init failed: HSA_STATUS_ERROR_OUT_OF_RESOURCES"), std::string::npos) << init.err;
  EXPECT_NE(init.err.find("AMD GPU"), std::string::npos) << init.err;
  const RunnerRun none = run_runner(args, fake("no-gpu"), tmp);
  EXPECT_EQ(none.exit_code, 8);
  EXPECT_NE(none.err.find("no GPU agent"), std::string::npos) << none.err;
}

TEST(HsaReplayRunner, AnotherGpuArchitectureIsRefused) {
  test::TempDir tmp;
  write_capture(tmp.path() / "cap", kTileSum, {}, pointer_args({kIn, kOut}), 256, 256, "gfx942");
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string()}, fake(), tmp);
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("taken on gfx942 but this GPU is gfx90a"), std::string::npos) << r.err;
}

TEST(HsaReplayRunner, ReserveCheckReportsEveryRangeExact) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const RunnerRun r = run_runner({"reserve-check", "--capture-dir", (tmp.path() / "cap").string()}, fake(), tmp);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_valid_document(r);
  const auto& ranges = r.doc.at("reservation").at("ranges");
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0].at("address"), "0x5e0000000000");
  EXPECT_EQ(ranges[0].at("status"), "exact");
  EXPECT_EQ(ranges[1].at("status"), "exact");
  EXPECT_TRUE(r.doc.at("reservation").at("all_exact").get<bool>());
}

TEST(HsaReplayRunner, ARelocatedReservationAbortsWithExitCode12AndRunsNothing) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string()}, fake("relocate"), tmp);
  EXPECT_EQ(r.exit_code, 12) << r.err;
  EXPECT_NE(r.err.find("2 captured address range(s) cannot be reserved"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0x5e0000000000 (4096 bytes) would land at 0x5f0000000000"), std::string::npos) << r.err;
  expect_valid_document(r);
  EXPECT_EQ(r.doc.at("reservation").at("ranges")[0].at("status"), "relocated");
  EXPECT_EQ(r.doc.at("reservation").at("regions")[1].at("status"), "relocated");
  EXPECT_TRUE(r.doc.at("gpu_time_ns").at("per_iteration").empty()) << "nothing ran";
}

TEST(HsaReplayRunner, FullVmRunsTheCapturedKernelByNameAndMatchesTheAfterSnapshot) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string(), "--iterations", "3"}, fake(), tmp);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_valid_document(r);
  EXPECT_EQ(r.doc.at("kernel").at("mangled_name"), "_Z8tile_sumPKfPf");
  EXPECT_EQ(r.doc.at("verification").at("status"), "match");
  EXPECT_EQ(r.doc.at("verification").at("regions_compared"), 2);
  const auto& t = r.doc.at("gpu_time_ns");
  ASSERT_EQ(t.at("per_iteration").size(), 3u);
  EXPECT_DOUBLE_EQ(t.at("median").get<double>(), 2500.0) << "2500 ticks of the fake's 1 GHz timestamp clock";
}

TEST(HsaReplayRunner, CacheModesAndVerificationReplaysAreApplied) {
  // In step with the CUDA runner (capture::run_full_vm): the replays of the unchanged code are counted, cold
  // flushes through a device buffer before each timed launch, warm launches once untimed. The double's kernel is
  // deterministic, so the verdict stays a bit-exact match.
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const std::string cap = (tmp.path() / "cap").string();
  for (const std::string cache : {"warm", "cold"}) {
    const RunnerRun r = run_runner({"full-vm", "--capture-dir", cap, "--iterations", "2", "--cache", cache,
                                    "--verify-replays", "3", "--dump-dir", tmp.file(cache)},
                                   fake(), tmp);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    expect_valid_document(r);
    EXPECT_EQ(r.doc.at("cache"), cache);
    EXPECT_EQ(r.doc.at("verification").at("status"), "match");
    EXPECT_EQ(r.doc.at("verification").at("replays"), 3);
    EXPECT_EQ(r.doc.at("gpu_time_ns").at("per_iteration").size(), 2u);
    EXPECT_EQ(as_floats(test::read_file(tmp.file(cache) + "/r000001.bin")).size(), 2u);
  }
  const RunnerRun bad = run_runner({"full-vm", "--capture-dir", cap, "--cache", "lukewarm"}, fake(), tmp);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--cache lukewarm"), std::string::npos) << bad.err;
}

TEST(HsaReplayRunner, ADifferentResultIsAMismatchWithExitCode13NamingTheRegion) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap", /*correct_after=*/false);
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string()}, fake(), tmp);
  EXPECT_EQ(r.exit_code, 13) << r.err;
  expect_valid_document(r);
  const auto& v = r.doc.at("verification");
  EXPECT_EQ(v.at("status"), "mismatch");
  ASSERT_EQ(v.at("differing_regions").size(), 1u);
  EXPECT_EQ(v.at("differing_regions")[0].at("id"), 1);
  EXPECT_EQ(v.at("differing_regions")[0].at("first_difference"), 4) << "out[1]";
}

TEST(HsaReplayRunner, NoRecopyAccumulatesAcrossIterationsRecopyDoesNot) {
  test::TempDir tmp;
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> plus_one = x;
  for (float& v : plus_one) v += 1;
  write_capture(tmp.path() / "cap", kAddOne, {region(tmp.path() / "cap", 0, kIn, x, plus_one)},
                pointer_args({kIn}, int32_t{8}), 64, 64);
  const std::string cap = (tmp.path() / "cap").string();
  const RunnerRun stateless = run_runner({"full-vm", "--capture-dir", cap, "--iterations", "3", "--dump-dir", tmp.file("a")}, fake(), tmp);
  EXPECT_EQ(stateless.exit_code, 0) << stateless.err;
  EXPECT_EQ(stateless.doc.at("verification").at("status"), "match");
  EXPECT_EQ(as_floats(test::read_file(tmp.file("a") + "/r000000.bin")), plus_one);

  const RunnerRun stateful = run_runner({"full-vm", "--capture-dir", cap, "--iterations", "3", "--no-recopy", "--dump-dir",
                                   tmp.file("b")}, fake(), tmp);
  EXPECT_EQ(stateful.exit_code, 0) << stateful.err;
  EXPECT_EQ(stateful.doc.at("verification").at("status"), "skipped");
  EXPECT_FALSE(stateful.doc.at("recopy").get<bool>());
  std::vector<float> plus_three = x;
  for (float& v : plus_three) v += 3;
  EXPECT_EQ(as_floats(test::read_file(tmp.file("b") + "/r000000.bin")), plus_three);
}

TEST(HsaReplayRunner, AKernelMissingFromTheCodeObjectIsNamedNotReplacedByAnother) {
  test::TempDir tmp;
  const Kernel absent{"_Z6absentPf", "_Z6absentPf.kd", 16, 0};
  write_capture(tmp.path() / "cap", absent, {}, pointer_args({kIn, kOut}), 256, 256);
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string()}, fake(), tmp);
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("holds no kernel named _Z6absentPf.kd"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("_Z7add_onePfi.kd"), std::string::npos) << "lists what it has: " << r.err;
}

TEST(HsaReplayRunner, CodeObjectOverrideMustKeepTheArgumentLayout) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const std::string cap = (tmp.path() / "cap").string();
  const RunnerRun same = run_runner({"full-vm", "--capture-dir", cap, "--code-object", kCodeObject}, fake(), tmp);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.doc.at("code_object").at("source"), "file");

  const Kernel wider{"_Z8tile_sumPKfPf", "_Z8tile_sumPKfPf.kd", 24, 1024};  // as if captured from another build
  write_capture(tmp.path() / "cap2", wider, {}, pointer_args({kIn, kOut, 0}), 256, 256);
  const RunnerRun other = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap2").string(), "--code-object", kCodeObject},
                               fake(), tmp);
  EXPECT_EQ(other.exit_code, 7) << other.err;
  EXPECT_NE(other.err.find("16-byte kernarg segment; the captured launch passed 24 bytes"), std::string::npos) << other.err;

  const RunnerRun missing = run_runner({"full-vm", "--capture-dir", cap, "--code-object", tmp.file("nothing.co")}, fake(), tmp);
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
}

TEST(HsaReplayRunner, AKernelFaultIsReportedNotAHang) {
  test::TempDir tmp;
  write_tile_sum_capture(tmp.path() / "cap");
  const RunnerRun r = run_runner({"full-vm", "--capture-dir", (tmp.path() / "cap").string()}, fake("fault"), tmp);
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("the replayed kernel failed on the GPU"), std::string::npos) << r.err;
}
#else
TEST(HsaReplayRunner, NotBuilt) { GTEST_SKIP() << "rpl_replay_hsa is not built here (no HSA headers: libhsa-runtime-dev)"; }
#endif

}  // namespace
}  // namespace rpl
