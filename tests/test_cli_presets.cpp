// `rocm-perf profile --preset / --counters` and `rocm-perf counters list`, end to end through the CLI with
// the rocprofv3 and rocprofv3-avail test doubles (tests/doubles/) on PATH: the rocprofv3 options each preset
// asks for, the outputs it adds, the refusals (exit 17) before anything runs, and bad counter files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::TempDir;
using rpl::test::validate_against_schema;

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

Env doubles(const TempDir& dir, Env extra = {}) {
  const char* path = std::getenv("PATH");
  extra.push_back({"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")});
  extra.push_back({"FAKE_ROCPROFV3_ARGV_LOG", dir.file("rocprofv3.argv")});
  return extra;
}

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

nlohmann::json load(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

std::vector<std::string> profile(const TempDir& dir, std::vector<std::string> flags) {
  std::vector<std::string> args = {"profile", "--platform", "rocm", "--runs", "1", "-o", dir.file("out")};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"--", "/bin/true"});
  return args;
}

}  // namespace

TEST(PresetCli, LightweightTracesKernelsAndTheRuntimeOnly) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--preset", "lightweight"}), doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("rocprofv3.argv")), "--kernel-trace --hip-runtime-trace --output-format rocpd -d " +
                                                       dir.file("out/runs/run-1/rocpd") + "\n");
  EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
  const auto doc = load(dir.file("out/profile.json"));
  EXPECT_EQ(doc["preset"]["name"], "lightweight");
  EXPECT_EQ(doc["preset"]["settings"]["memory_copies"], false);
  EXPECT_FALSE(doc.contains("api_stats"));
  // the guide's lightweight JSON trace (issue 33): the run as trace events; no Perfetto-preset file
  EXPECT_EQ(doc["preset"]["settings"]["trace_json"], true);
  const auto trace = load(dir.file("out/trace.json"));
  ASSERT_TRUE(trace.contains("traceEvents")) << trace.dump().substr(0, 200);
  EXPECT_NE(trace.dump().find("vecAdd"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.file("out/trace.perfetto.json")));
}

TEST(PresetCli, ApiOverheadTracesEveryApiAndWritesTheStatistics) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--preset", "api-overhead"}), doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string argv = read_file(dir.file("rocprofv3.argv"));
  for (const char* f : {"--hip-trace", "--hsa-trace", "--marker-trace", "--memory-copy-trace"})
    EXPECT_NE(argv.find(f), std::string::npos) << argv;
  EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
  const auto doc = load(dir.file("out/profile.json"));
  EXPECT_TRUE(doc.contains("api_stats"));
  EXPECT_NE(r.out.find("API calls ("), std::string::npos) << r.out;
  EXPECT_NE(read_file(dir.file("out/report.html")).find("id=\"api-stats\""), std::string::npos);
}

TEST(PresetCli, PerfettoWritesATraceBesideTheOutputs) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--preset", "perfetto"}), doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(dir.file("rocprofv3.argv")).find("--output-format rocpd pftrace"), std::string::npos);
  const auto trace = load(dir.file("out/trace.perfetto.json"));
  EXPECT_TRUE(trace.contains("traceEvents")) << trace.dump().substr(0, 200);
}

// --library-trace (issue 33): rocprofv3 records the ROCTx ranges hipBLASLt puts around its calls
// (HIPBLASLT_ENABLE_MARKER=1, which rocm-perf sets); library_trace.csv and library_calls.json follow.
TEST(PresetCli, LibraryTraceWritesTheLibraryCallsOfTheRun) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--library-trace"}), doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(dir.file("rocprofv3.argv")).find("--marker-trace"), std::string::npos);
  const std::string csv = read_file(dir.file("out/library_trace.csv"));
  EXPECT_EQ(csv.rfind("\"Library\",\"Function\",", 0), 0u) << csv;
  std::size_t rows = 0;
  for (std::size_t at = 0; (at = csv.find("\"hipBLASLt\",\"hipblasLtMatmul\"", at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, 3u) << csv;  // the stand-in's three launches, one kernel each
  EXPECT_NE(csv.find(",3000,1,0,16000,"), std::string::npos) << csv;
  EXPECT_EQ(validate_against_schema("library-calls", dir.file("out/library_calls.json")), "");
  EXPECT_EQ(load(dir.file("out/library_calls.json"))["calls"], 3);
}

TEST(PresetCli, LibraryTraceCountsRocblasCallsFromItsProfileLog) {
  // rocBLAS marks no call: `--library-trace` asks for its profile log in the run's folder (ROCBLAS_LAYER=4) and
  // lists its counts in library_calls.json (counted_calls; no times, not in library_trace.csv).
  TempDir dir;
  auto r = run_cli(profile(dir, {"--library-trace"}),
                   doubles(dir, {{"FAKE_ROCPROFV3_ROCBLAS_CALLS", "rocblas_sgemm:12;rocblas_dgemv:3"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("rocBLAS's profile log counted 15 calls of 2 function and argument sets"), std::string::npos)
      << r.err;
  EXPECT_EQ(validate_against_schema("library-calls", dir.file("out/library_calls.json")), "");
  const auto doc = load(dir.file("out/library_calls.json"));
  ASSERT_EQ(doc["counted_calls"].size(), 2u);
  EXPECT_EQ(doc["counted_calls"][0]["function"], "rocblas_sgemm");
  EXPECT_EQ(doc["counted_calls"][0]["calls"], 12);
  EXPECT_EQ(read_file(dir.file("out/library_trace.csv")).find("rocblas"), std::string::npos);
  // A ROCBLAS_LAYER the user set is theirs: rocm-perf asks for no log and counts nothing.
  TempDir mine;
  r = run_cli(profile(mine, {"--library-trace"}),
              doubles(mine, {{"FAKE_ROCPROFV3_ROCBLAS_CALLS", "rocblas_sgemm:12"}, {"ROCBLAS_LAYER", "1"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(load(mine.file("out/library_calls.json")).contains("counted_calls"));
}

TEST(PresetCli, LibraryTraceKeepsTheUsersMarkerSwitchAndSaysNothingWasRecorded) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--library-trace"}), doubles(dir, {{"HIPBLASLT_ENABLE_MARKER", "0"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no library call was recorded"), std::string::npos) << r.err;
  EXPECT_EQ(load(dir.file("out/library_calls.json"))["calls"], 0);
  // without a profiler there is no trace to find calls in: a usage error before anything runs
  auto bad = run_cli({"profile", "--no-rocprof", "--library-trace", "-o", dir.file("o2"), "--", "/bin/true"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--library-trace needs the profiler"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir.file("o2")));
}

// --scratch-memory-trace (issue 33): rocprofv3 records the runtime's scratch operations; scratch_memory.json
// summarises them with the kernels that need scratch, scratch_memory_trace.csv lists them.
// A library whose kernels ran but that marked none of its calls (cuBLAS and cuDNN on the H200, 2026-11-29): the
// warning names it, so an empty library_trace.csv does not read as "the library was not used". The stand-in puts a
// hipblasLtMatmul range around every launch when HIPBLASLT_ENABLE_MARKER=1 (rocm-perf's default).
TEST(PresetCli, LibraryTraceNamesALibraryWhoseKernelsRanWithoutAMarkedCall) {
  const std::string warning = "hipBLASLt kernel dispatches ran (1 kernel, e.g. hipblaslt_gemm_bf16) but no hipBLASLt "
                              "call was recorded: the library put no ROCTx range around its calls";
  TempDir off;
  auto r = run_cli(profile(off, {"--library-trace"}), doubles(off, {{"FAKE_ROCPROFV3_KERNELS", "hipblaslt_gemm_bf16:3:16000"},
                                                                     {"HIPBLASLT_ENABLE_MARKER", "0"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("3 " + warning), std::string::npos) << r.err;
  EXPECT_EQ(validate_against_schema("library-calls", off.file("out/library_calls.json")), "");
  EXPECT_EQ(load(off.file("out/library_calls.json"))["kernels_without_calls"][0]["dispatches"], 3);
  // markers on: the calls are found and nothing is said about the kernels
  TempDir on;
  r = run_cli(profile(on, {"--library-trace"}), doubles(on, {{"FAKE_ROCPROFV3_KERNELS", "hipblaslt_gemm_bf16:3:16000"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("no hipBLASLt call was recorded"), std::string::npos) << r.err;
  EXPECT_EQ(load(on.file("out/library_calls.json"))["calls"], 3);
  EXPECT_FALSE(load(on.file("out/library_calls.json")).contains("kernels_without_calls"));
}

TEST(PresetCli, ScratchMemoryTraceWritesTheScratchOutputs) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--scratch-memory-trace"}), doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(dir.file("rocprofv3.argv")).find("--scratch-memory-trace"), std::string::npos);
  EXPECT_EQ(validate_against_schema("scratch-memory", dir.file("out/scratch_memory.json")), "");
  const auto doc = load(dir.file("out/scratch_memory.json"));
  EXPECT_EQ(doc["operations"], 2);  // the stand-in's ALLOC before the first launch, RECLAIM at the end
  EXPECT_EQ(doc["allocation_ns"], 6000);
  EXPECT_EQ(doc["agents"][0]["bytes_allocated"], 4 << 20);
  EXPECT_EQ(doc["kernels"][0]["max_bytes_per_work_item"], 512);
  EXPECT_EQ(doc["kernels"][0]["dispatches"], 3);
  const std::string csv = read_file(dir.file("out/scratch_memory_trace.csv"));
  EXPECT_NE(csv.find("\"SCRATCH_MEMORY_ALLOC\""), std::string::npos) << csv;
  EXPECT_NE(csv.find("\"SCRATCH_MEMORY_ASYNC_RECLAIM\""), std::string::npos) << csv;
  auto bad = run_cli({"profile", "--no-rocprof", "--scratch-memory-trace", "-o", dir.file("o2"), "--", "/bin/true"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--scratch-memory-trace needs the profiler"), std::string::npos) << bad.err;
}

TEST(PresetCli, APresetThePlatformCannotHonourExits17BeforeRunning) {
  TempDir dir;
  // NVIDIA records NCCL calls through our plugin; with another plugin chosen it cannot, and says so before
  // the collector is even looked for.
  auto r = run_cli({"profile", "--platform", "cuda", "--preset", "communication", "-o", dir.file("o2"), "--", "/bin/true"},
                   {{"NCCL_PROFILER_PLUGIN", "/opt/other/libnccl-profiler.so"}});
  EXPECT_EQ(r.exit_code, 17) << r.err;
  EXPECT_NE(r.err.find("NCCL_PROFILER_PLUGIN is set"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--preset communication cannot be honoured"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("o2/runs")));
}

// NVIDIA's communication preset (issue 33): past the platform check, its sm_90 counter file is checked against
// the device (the CUPTI enumeration stand-in), then the application runs with our NCCL plugin named in
// NCCL_PROFILER_PLUGIN. No GPU here: the CUDA collector writes no trace (exit 8), but the application saw the plugin.
TEST(PresetCli, NvidiaCommunicationRunsTheApplicationWithTheNcclPlugin) {
  TempDir dir;
  const std::string plugin = write(dir, "librpl_nccl_profiler.so", "stand-in");
  auto r = run_cli({"profile", "--platform", "cuda", "--preset", "communication", "--runs", "1", "-o", dir.file("out"),
                    "--", "/bin/sh", "-c", "echo \"$NCCL_PROFILER_PLUGIN\" > " + dir.file("seen")},
                   {{"RPL_NCCL_PROFILER", plugin},
                    {"RPL_NVML_LIBRARY", RPL_FAKE_NVML},
                    {"RPL_CUPTI_METRICS", std::string(RPL_SOURCE_DIR) + "/tests/doubles/fake_cupti_metrics.sh"}});
  EXPECT_NE(r.exit_code, 17) << r.err;
  EXPECT_EQ(read_file(dir.file("seen")), plugin + "\n") << r.err;
}

TEST(PresetCli, ComputeMonitorsTheDeviceAndStopsWhenItsLibraryIsMissing) {
  TempDir dir;
  // compute = counters + the device monitor: with the ROCm SMI stand-in it runs and summarises the device
  auto r = run_cli(profile(dir, {"--preset", "compute"}), doubles(dir, {{"RPL_ROCM_SMI_LIBRARY", RPL_FAKE_ROCM_SMI}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
  const auto doc = load(dir.file("out/profile.json"));
  EXPECT_EQ(doc["preset"]["name"], "compute");
  EXPECT_EQ(doc["preset"]["settings"]["monitor_device"], true);
  EXPECT_EQ(doc["runs"]["device_monitor"]["source"], "rocm-smi") << doc["runs"].dump();
  // no library at all: exit 8 naming what is missing, never a profile without the monitor it promised
  TempDir other;
  r = run_cli(profile(other, {"--preset", "compute"}), doubles(other, {{"RPL_ROCM_SMI_LIBRARY", other.file("absent.so")}}));
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("device monitoring"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(other.file("out/profile.json")));
}

TEST(PresetCli, RdnaRunsTheMemoryPresetWithItsOwnCountersAndAnL2HitRate) {
  // gfx1030 and gfx1100 ship counter files with GL2C names (was: exit 17 for every counter preset); the
  // L2 hit rate reaches analysis.json from GL2C_HIT / GL2C_MISS. Unvalidated on AMD hardware.
  for (const char* arch : {"gfx1030", "gfx1100"}) {
    TempDir dir;
    auto r = run_cli(profile(dir, {"--preset", "memory"}),
                     doubles(dir, {{"RPL_ROCM_SMI_LIBRARY", RPL_FAKE_ROCM_SMI}, {"FAKE_ROCPROFV3_ARCH", arch},
                                   {"FAKE_ROCPROFV3_COUNTER_VALUES", "GL2C_HIT_sum=900;GL2C_MISS_sum=100"}}));
    ASSERT_EQ(r.exit_code, 0) << arch << ": " << r.err;
    EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
    EXPECT_EQ(validate_against_schema("analysis", dir.file("out/analysis.json")), "");
    const auto c = load(dir.file("out/profile.json"))["counters"];
    EXPECT_EQ(c["counter_file"], std::string("share/counters/") + arch + "/memory_bound.txt") << c.dump();
    EXPECT_EQ(c["application_runs"], 8);  // one GL2C counter per run: RDNA's per-pass limits are unknown
    const auto analysis = load(dir.file("out/analysis.json"));
    const auto& deep = analysis["ranking"]["kernels"][0]["deep_analysis"];
    ASSERT_TRUE(deep.is_object()) << analysis["ranking"].dump(1);
    EXPECT_DOUBLE_EQ(deep["l2_hit_rate"].get<double>(), 0.9);
    EXPECT_TRUE(deep["valu_utilization"].is_null());
    // The roofline places the device-memory traffic only, and says what it cannot place.
    const auto roofline = load(dir.file("out/roofline.json"));
    EXPECT_EQ(roofline["status"], "ok") << roofline.dump(1);
    EXPECT_NE(roofline["devices"][0]["limitation"].get<std::string>().find("no FLOP counters"), std::string::npos);
  }
}

TEST(PresetCli, UsageErrors) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--preset", "heavy"}), doubles(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("heavy"), std::string::npos) << r.err;
  r = run_cli({"profile", "--no-rocprof", "--preset", "lightweight", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--no-rocprof"), std::string::npos) << r.err;
  r = run_cli({"profile", "--no-rocprof", "--counters", write(dir, "c.txt", "pmc: SQ_WAVES\n"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(CountersCli, AFileIsCheckedThenCollectedPassByPass) {
  TempDir dir;
  const std::string file = write(dir, "mine.txt",
                                 "# two passes\npmc: SQ_WAVES SQ_INSTS_VALU\npmc: TCC_HIT_sum, TCC_MISS_sum\n");
  auto r = run_cli(profile(dir, {"--counters", file}), doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("profile", dir.file("out/profile.json")), "");
  const auto c = load(dir.file("out/profile.json"))["counters"];
  EXPECT_EQ(c["counter_file"], file);
  EXPECT_EQ(c["requested"], nlohmann::json::array({"file"}));
  EXPECT_EQ(c["application_runs"], 2);  // one per pmc line
  EXPECT_EQ(c["passes"].size(), 2u);
  ASSERT_EQ(c["file_totals"].size(), 4u);  // one kernel x four counters
  EXPECT_EQ(c["file_totals"][0]["instances"], 3);
  EXPECT_EQ(c["file_totals"][0]["mean"], 1000.0);  // the double's value per dispatch
  EXPECT_NE(r.out.find("2 application run(s)"), std::string::npos) << r.out;
  // The -i input rocprofv3 got holds the file's passes.
  EXPECT_NE(read_file(dir.file("out/runs/counters/counter-file/counters.txt")).find("pmc: TCC_HIT_sum TCC_MISS_sum"),
            std::string::npos);
}

TEST(CountersCli, AnUnsupportedCounterIsNamedWithItsLineBeforeAnythingRuns) {
  TempDir dir;
  const std::string file = write(dir, "bad.txt", "pmc: SQ_WAVES\npmc: TCC_EA0_RDREQ_sum BOGUS_COUNTER\n");
  auto r = run_cli(profile(dir, {"--counters", file}), doubles(dir));  // gfx90a: no TCC_EA0_*
  EXPECT_EQ(r.exit_code, 17) << r.err;
  EXPECT_NE(r.err.find("TCC_EA0_RDREQ_sum (" + file + ":2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("BOGUS_COUNTER (" + file + ":2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gfx90a"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("rocprofv3.argv")));
  // The same file on gfx942 passes the check for TCC_EA0_RDREQ_sum but not for the bogus one.
  r = run_cli(profile(dir, {"--counters", file}), doubles(dir, {{"FAKE_ROCPROFV3_ARCH", "gfx942"}}));
  EXPECT_EQ(r.exit_code, 17) << r.err;
  EXPECT_EQ(r.err.find("TCC_EA0_RDREQ_sum ("), std::string::npos) << r.err;
}

TEST(CountersCli, BadOrMissingFiles) {
  TempDir dir;
  auto r = run_cli(profile(dir, {"--counters", write(dir, "x.txt", "pmc: A\nSQ_WAVES\n")}), doubles(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(dir.file("x.txt") + ":2:"), std::string::npos) << r.err;
  r = run_cli(profile(dir, {"--counters", dir.file("absent.txt")}), doubles(dir));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("absent.txt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("rocprofv3.argv")));
}

TEST(CountersCli, ListPrintsTheDevicesCountersAsTextOrSchemaValidJson) {
  TempDir dir;
  auto r = run_cli({"counters", "list", "--platform", "rocm"}, doubles(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("device 0: gfx90a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  TCC_EA_RDREQ_sum\n"), std::string::npos) << r.out;
  r = run_cli({"counters", "list", "--platform", "rocm", "--device", "1", "--json"},
              doubles(dir, {{"FAKE_ROCPROFV3_ARCH", "gfx942"}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  write(dir, "list.json", r.out);
  EXPECT_EQ(validate_against_schema("counters-list", dir.file("list.json")), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["device"], 1);
  EXPECT_EQ(doc["arch"], "gfx942");
  EXPECT_EQ(doc["count"], doc["counters"].size());
  EXPECT_EQ(r.err, "");
  r = run_cli({"counters", "list", "--platform", "rocm"}, doubles(dir, {{"FAKE_ROCPROFV3_AVAIL_MODE", "fail"}}));
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("simulated failure"), std::string::npos) << r.err;
  r = run_cli({"counters", "list", "--platform", "rocm"}, doubles(dir, {{"FAKE_ROCPROFV3_AVAIL_MODE", "garbage"}}));
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_EQ(run_cli({"counters", "list", "--device", "-1", "--platform", "rocm"}, doubles(dir)).exit_code, 2);
}

// rocprofv3-avail's output goes to temporary files under TMPDIR (removed afterwards); a TMPDIR that is not a
// folder is reported by name, never replaced by /tmp.
TEST(CountersCli, ListKeepsItsTemporaryFilesUnderTmpdir) {
  TempDir dir;
  fs::create_directories(dir.file("own-tmp"));
  auto r = run_cli({"counters", "list", "--platform", "rocm"}, doubles(dir, {{"TMPDIR", dir.file("own-tmp")}}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_empty(dir.file("own-tmp"))) << "the temporary files are removed";
  r = run_cli({"counters", "list", "--platform", "rocm"}, doubles(dir, {{"TMPDIR", dir.file("absent")}}));
  EXPECT_EQ(r.exit_code, 10) << r.err;
  EXPECT_NE(r.err.find("TMPDIR=" + dir.file("absent")), std::string::npos) << r.err;
}

// Every shipped AMD counter file passes the check against its architecture's counter list (the double's,
// taken from ROCm 7.0's counter_defs.yaml) and is collected in as many runs as it has pmc lines.
TEST(CountersCli, TheShippedAmdFilesUseCountersTheirArchitectureHas) {
  for (const char* arch : {"gfx90a", "gfx942"})
    for (const char* file : {"compute_bound.txt", "memory_bound.txt", "communication_bound.txt", "full_profile.txt"}) {
      TempDir dir;
      const std::string path = std::string(RPL_SOURCE_DIR) + "/share/counters/" + arch + "/" + file;
      auto r = run_cli(profile(dir, {"--counters", path, "--quiet"}), doubles(dir, {{"FAKE_ROCPROFV3_ARCH", arch}}));
      ASSERT_EQ(r.exit_code, 0) << arch << "/" << file << ": " << r.err;
      const auto c = load(dir.file("out/profile.json"))["counters"];
      std::size_t lines = 0;
      const std::string text = read_file(path);
      for (std::size_t p = text.find("\npmc:"); p != std::string::npos; p = text.find("\npmc:", p + 1)) ++lines;
      EXPECT_EQ(c["application_runs"].get<std::size_t>(), lines) << arch << "/" << file;
    }
}

// NVIDIA: the same commands through the CUPTI metric enumeration (a double of rpl_cupti_metrics with output
// recorded on a GH100): the list, and a counter file checked by CUPTI before anything runs.
TEST(CountersCli, NvidiaListAndCheckThroughTheCuptiEnumeration) {
  TempDir dir;
  const Env cupti = {{"RPL_CUPTI_METRICS", std::string(RPL_SOURCE_DIR) + "/tests/doubles/fake_cupti_metrics.sh"}};
  auto r = run_cli({"counters", "list", "--platform", "cuda", "--json"}, cupti);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  write(dir, "list.json", r.out);
  EXPECT_EQ(validate_against_schema("counters-list", dir.file("list.json")), "");
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["arch"], "sm_90");
  EXPECT_EQ(doc["chip"], "GH100");
  EXPECT_EQ(doc["source"], "cupti");
  EXPECT_EQ(doc["counters"][0]["name"], "dram__bytes_read");
  r = run_cli({"counters", "list", "--platform", "cuda"}, cupti);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("device 0: sm_90 (GH100), 4 base metrics (cupti)"), std::string::npos) << r.out;

  const std::string file = write(dir, "nv.txt", "pmc: dram__bytes_read.sum\npmc: sm__bogus_thing.sum\n");
  r = run_cli({"profile", "--platform", "cuda", "--counters", file, "-o", dir.file("out"), "--", "/bin/true"}, cupti);
  EXPECT_EQ(r.exit_code, 17) << r.err;
  EXPECT_NE(r.err.find("sm__bogus_thing.sum (" + file + ":2)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sm_90"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("dram__bytes_read.sum ("), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out/runs")));  // nothing ran

  auto failing = cupti;
  failing.push_back({"FAKE_CUPTI_METRICS_MODE", "fail"});
  r = run_cli({"counters", "list", "--platform", "cuda"}, failing);
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("cuInit failed"), std::string::npos) << r.err;
  r = run_cli({"counters", "list", "--platform", "cuda"}, {{"RPL_CUPTI_METRICS", dir.file("absent")}});
  EXPECT_EQ(r.exit_code, 8) << r.err;
  EXPECT_NE(r.err.find("RPL_CUPTI_METRICS=" + dir.file("absent")), std::string::npos) << r.err;
}
