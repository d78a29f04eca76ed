// `profile --roofline` / `--deep`: pairing counter-run instances with trace dispatches (an ncu CSV recorded on
// an H100, trimmed of its device-attribute columns: tests/data/ncu/fma_peak_h100_raw.csv; AMD pass traces built
// in memory), the ncu pass with a stand-in ncu, and the AMD passes end to end through the CLI with the stand-in
// rocprofv3 (tests/doubles/fake_rocprofv3.cpp), whose values must reach the trace database and roofline.json.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <nlohmann/json.hpp>

#include "analysis/deep_analysis.hpp"
#include "analysis/amd_counter_analysis.hpp"
#include "analysis/roofline_counters.hpp"
#include "app/profile_counters.hpp"
#include "collectors/amd/pmc_import.hpp"
#include "collectors/counter_pass.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::InMemoryTrace;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::SqlFile;
using rpl::test::TempDir;
using rpl::test::validate_against_schema;

namespace {

const std::string kFmaCsv = std::string(RPL_SOURCE_DIR) + "/tests/data/ncu/fma_peak_h100_raw.csv";

std::vector<std::string> h100_metrics() {
  auto m = rpl::analysis::ncu_roofline_metrics("sm_90");
  for (const auto& d : rpl::analysis::ncu_deep_metrics("sm_90"))
    if (std::find(m.begin(), m.end(), d) == m.end()) m.push_back(d);
  return m;
}

// The trace run of fma_peak as our CUPTI collector records it: `launches` dispatches, grid in work-items.
InMemoryTrace fma_trace(int launches, uint32_t blocks = 4224) {
  InMemoryTrace t;
  t.add_process(4242);
  t.trace.processes[0].source_file = "run-1.db";
  const auto agent = t.add_agent("sm_90", 32);
  const auto sym = t.add_symbol("fma_peak(float*, int)", "_Z8fma_peakPfi");
  for (int i = 0; i < launches; ++i) {
    t.add_dispatch(sym, 1000 + i * 2'000'000, 1000 + i * 2'000'000 + 1'300'000, agent, 256)->grid[0] = blocks * 256;
  }
  return t;
}

bool any_contains(const std::vector<std::string>& v, const std::string& what) {
  for (const auto& s : v)
    if (s.find(what) != std::string::npos) return true;
  return false;
}

std::pair<std::string, std::string> path_with_double() {
  const char* path = std::getenv("PATH");
  return {"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")};
}

nlohmann::json load(const std::string& path) { return nlohmann::json::parse(read_file(path)); }

// The first database of the representative run, from profile.json.
std::string representative_db(const nlohmann::json& profile) {
  const auto& runs = profile["runs"];
  return runs["per_run"][runs["representative_run"].get<int>() - 1]["databases"][0];
}

}  // namespace

TEST(NcuPairing, EveryInstanceGetsItsDispatchInLaunchOrder) {
  const auto report = rpl::collectors::read_ncu_csv(kFmaCsv);
  ASSERT_EQ(report.kernels.size(), 10u);
  const auto metrics = h100_metrics();
  auto m = rpl::app::match_counter_samples(fma_trace(10).trace, rpl::collectors::ncu_counter_samples(report, metrics));
  EXPECT_EQ(m.instances, 10u);
  EXPECT_EQ(m.matched, 10u);
  ASSERT_EQ(m.databases.size(), 1u);
  EXPECT_EQ(m.databases[0].database, "run-1.db");
  EXPECT_EQ(m.databases[0].guid, "guid-4242");
  EXPECT_EQ(m.values, m.databases[0].values.size());
  // Every requested metric that ncu reported, on every dispatch; the i-th instance on dispatch id i + 1.
  std::size_t reported = 0;
  for (const auto& name : metrics) reported += report.value(report.kernels[0], name).has_value();
  EXPECT_EQ(m.values, 10 * reported);
  for (const auto& v : m.databases[0].values)
    if (v.counter == "gpu__time_duration.sum" && v.dispatch_id == 4) {
      EXPECT_DOUBLE_EQ(v.value, *report.value(report.kernels[3], "gpu__time_duration.sum"));
    }
  EXPECT_FALSE(any_contains(m.warnings, "could not"));
}

TEST(NcuPairing, MoreInstancesThanDispatchesAreCountedAndSaid) {
  const auto report = rpl::collectors::read_ncu_csv(kFmaCsv);
  auto m = rpl::app::match_counter_samples(fma_trace(8).trace, rpl::collectors::ncu_counter_samples(report, h100_metrics()));
  EXPECT_EQ(m.instances, 10u);
  EXPECT_EQ(m.matched, 8u);
  EXPECT_TRUE(any_contains(m.warnings, "2 extra instance(s) were skipped")) << ::testing::PrintToString(m.warnings);
}

TEST(NcuPairing, ADifferentGridOrAnUnknownKernelIsSaid) {
  const auto report = rpl::collectors::read_ncu_csv(kFmaCsv);
  auto m = rpl::app::match_counter_samples(fma_trace(10, 100).trace, rpl::collectors::ncu_counter_samples(report, h100_metrics()));
  EXPECT_EQ(m.matched, 10u);
  EXPECT_TRUE(any_contains(m.warnings, "grid or block size")) << ::testing::PrintToString(m.warnings);

  InMemoryTrace other;
  other.add_process(1);
  other.add_symbol("other_kernel(int)", "_Z12other_kerneli");
  other.add_dispatch(0, 0, 10);
  m = rpl::app::match_counter_samples(other.trace, rpl::collectors::ncu_counter_samples(report, h100_metrics()));
  EXPECT_EQ(m.matched, 0u);
  EXPECT_EQ(m.values, 0u);
  EXPECT_TRUE(any_contains(m.warnings, "matches no kernel of the trace")) << ::testing::PrintToString(m.warnings);
}

namespace {

// A trace (or a counter pass) with `counts[k]` launches of kernel k in one or two processes; a pass gets
// counter "SQ_WAVES" = 10 x (launch number) on every dispatch.
InMemoryTrace amd_trace(const std::vector<int>& counts, bool counters, int processes = 1) {
  InMemoryTrace t;
  const char* names[] = {"gemm(float*)", "softmax(float*)"};
  for (int p = 0; p < processes; ++p) {
    const auto proc = t.add_process(100 + p);
    t.trace.processes[proc].source_file = "p" + std::to_string(p) + ".db";
    t.trace.processes[proc].start = p;
    const auto agent = t.add_agent("gfx942", 64, proc);
    const rpl::Index waves = t.trace.strings.intern("SQ_WAVES");
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const auto sym = t.add_symbol(names[k], names[k], proc);
      for (int i = 0; i < counts[k]; ++i) {
        t.add_dispatch(sym, 1000 * (i + 1) + static_cast<int>(k), 1000 * (i + 1) + 500, agent, 256);
        if (counters)
          t.trace.counters.push_back({static_cast<rpl::Index>(t.trace.dispatches.size() - 1), waves, 10.0 * (i + 1)});
      }
    }
  }
  return t;
}

}  // namespace

TEST(PassPairing, CountersGoToTheSameOccurrenceOfTheSameKernel) {
  auto trace = amd_trace({3, 2}, false, 2);
  auto pass = amd_trace({3, 2}, true, 2);
  auto m = rpl::app::match_counter_samples(trace.trace, rpl::collectors::pmc_counter_samples(pass.trace));
  EXPECT_EQ(m.instances, 10u);
  EXPECT_EQ(m.matched, 10u);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
  ASSERT_EQ(m.databases.size(), 2u);  // one per process / database
  for (const auto& db : m.databases) {
    ASSERT_EQ(db.values.size(), 5u);
    // Each process's dispatch ids run gemm 1-3, softmax 4-5 (offset by 5 in the second); the value stored on
    // a dispatch is the pass's value of the same kernel's same launch: 10 x its launch number.
    for (const auto& v : db.values) {
      const int local = static_cast<int>((v.dispatch_id - 1) % 5);
      EXPECT_EQ(v.value, 10.0 * (local < 3 ? local + 1 : local - 2)) << db.database << " dispatch " << v.dispatch_id;
      EXPECT_EQ(v.counter, "SQ_WAVES");
    }
  }
}

TEST(PassPairing, ExtraLaunchesAndUnknownKernelsAreNotStoredButSaid) {
  auto trace = amd_trace({2}, false);
  auto pass = amd_trace({3, 1}, true);
  auto m = rpl::app::match_counter_samples(trace.trace, rpl::collectors::pmc_counter_samples(pass.trace));
  EXPECT_EQ(m.instances, 4u);
  EXPECT_EQ(m.matched, 2u);
  EXPECT_EQ(m.values, 2u);
  EXPECT_TRUE(any_contains(m.warnings, "1 more time(s)")) << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(any_contains(m.warnings, "no such kernel")) << ::testing::PrintToString(m.warnings);
  // Different process counts: paired across processes, and said.
  m = rpl::app::match_counter_samples(amd_trace({2}, false, 2).trace, rpl::collectors::pmc_counter_samples(amd_trace({2}, true, 1).trace));
  EXPECT_TRUE(any_contains(m.warnings, "across all processes")) << ::testing::PrintToString(m.warnings);
}

namespace {

// A stand-in ncu: a shell script that records its arguments, copies a CSV to the --log-file path and exits
// with `status` (clearly not Nsight Compute).
std::string fake_ncu(const TempDir& dir, const std::string& csv, int status, const std::string& extra_log = "") {
  const std::string path = dir.file("ncu");
  std::ofstream(path) << "#!/bin/sh\necho \"$@\" > " << dir.file("ncu.args") << "\nlog=\n"
                      << "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=$2; shift; done\n"
                      << "{ cat '" << csv << "'; printf '%s\\n' '" << extra_log << "'; } > \"$log\"\nexit " << status
                      << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

rpl::collectors::CounterPassRequest request(const TempDir& dir) {
  rpl::collectors::CounterPassRequest r;
  r.argv = {"/bin/true"};
  r.run_dir = dir.file("counters");
  r.kernel_regex = "fma_peak";
  return r;
}

}  // namespace

TEST(NcuPass, RunsNcuWithTheFilterAndParsesItsCsv) {
  TempDir dir;
  setenv("RPL_NCU", fake_ncu(dir, kFmaCsv, 0).c_str(), 1);
  auto pass = rpl::collectors::run_ncu_pass(request(dir), {"gpu__time_duration.sum", "dram__bytes_read.sum"});
  unsetenv("RPL_NCU");
  EXPECT_EQ(pass.report.kernels.size(), 10u);
  const std::string args = read_file(dir.file("ncu.args"));
  EXPECT_NE(args.find("--kernel-name-base demangled --kernel-name regex:fma_peak"), std::string::npos) << args;
  EXPECT_NE(args.find("--metrics gpu__time_duration.sum,dram__bytes_read.sum"), std::string::npos) << args;
  EXPECT_NE(args.find("--cache-control all --clock-control none"), std::string::npos) << args;
  // Without --kernel, NCCL's kernels are left out (a multi-rank job's collectives hang under ncu's replay)
  rpl::collectors::CounterPassRequest every = request(dir);
  every.kernel_regex.clear();
  setenv("RPL_NCU", fake_ncu(dir, kFmaCsv, 0).c_str(), 1);
  rpl::collectors::run_ncu_pass(every, {"gpu__time_duration.sum"});
  unsetenv("RPL_NCU");
  const std::string all_args = read_file(dir.file("ncu.args"));
  EXPECT_NE(all_args.find("--kernel-name-base demangled --kernel-name regex:^(?!(void )?nccl)"), std::string::npos) << all_args;
  const std::regex skips(R"(^(?!(void )?nccl))");
  EXPECT_FALSE(std::regex_search("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", skips));
  EXPECT_FALSE(std::regex_search("void ncclKernel<1, 2>(ncclDevComm*)", skips));
  EXPECT_TRUE(std::regex_search("void at::native::vectorized_elementwise_kernel<4>(int)", skips));
  EXPECT_TRUE(std::regex_search("fma_peak(float*)", skips));
}

TEST(NcuPass, MetricsThisGpuCannotAccessAreDroppedAndThePassRunsAgain) {
  // As ncu 2025 said on one H200 without NVLink peers (communication_bound.txt, 2026-11-29).
  const std::string said = "==ERROR== Unable to access the following 2 metrics: nvlrx__bytes.sum, nvltx__bytes.sum.";
  EXPECT_EQ(rpl::collectors::ncu_unavailable_metrics("==PROF== Connected\n" + said + "\n\n==ERROR== Failed to profile"),
            (std::vector<std::string>{"nvlrx__bytes.sum", "nvltx__bytes.sum"}));
  EXPECT_TRUE(rpl::collectors::ncu_unavailable_metrics("==ERROR== ERR_NVGPUCTRPERM - no permission").empty());
  TempDir dir;
  // A stand-in ncu that refuses NVLink metrics and otherwise writes the CSV.
  const std::string path = dir.file("ncu");
  std::ofstream(path) << "#!/bin/sh\necho \"$@\" >> " << dir.file("ncu.args") << "\nlog=\nnvl=\n"
                      << "for a in \"$@\"; do case \"$a\" in *nvlrx*) nvl=1;; esac; done\n"
                      << "while [ $# -gt 0 ]; do [ \"$1\" = --log-file ] && log=$2; shift; done\n"
                      << "if [ -n \"$nvl\" ]; then printf '%s\\n' '" << said << "' > \"$log\"; exit 9; fi\n"
                      << "cat '" << kFmaCsv << "' > \"$log\"\n";
  chmod(path.c_str(), 0755);
  setenv("RPL_NCU", path.c_str(), 1);
  auto pass = rpl::collectors::run_ncu_pass(request(dir), {"gpu__time_duration.sum", "nvlrx__bytes.sum", "nvltx__bytes.sum"});
  EXPECT_EQ(pass.report.kernels.size(), 10u);
  EXPECT_TRUE(pass.process.ok());
  const std::string args = read_file(dir.file("ncu.args"));
  EXPECT_NE(args.find("--metrics gpu__time_duration.sum,nvlrx__bytes.sum,nvltx__bytes.sum"), std::string::npos) << args;
  EXPECT_NE(args.find("--metrics gpu__time_duration.sum "), std::string::npos) << "the second run without them: " << args;
  bool said_so = false;
  for (const auto& w : pass.report.warnings) said_so = said_so || w.find("nvlrx__bytes.sum, nvltx__bytes.sum") != std::string::npos;
  EXPECT_TRUE(said_so);
  // Every metric unavailable: nothing left to count, the pass fails as before.
  try {
    rpl::collectors::run_ncu_pass(request(dir), {"nvlrx__bytes.sum"});
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::ProfilerFailed);
  }
  unsetenv("RPL_NCU");
}

TEST(NcuPass, NcuErrorsAreProfilerFailuresWithItsLog) {
  TempDir dir;
  setenv("RPL_NCU", fake_ncu(dir, "/dev/null", 1, "==ERROR== ERR_NVGPUCTRPERM - no permission").c_str(), 1);
  try {
    rpl::collectors::run_ncu_pass(request(dir), {"gpu__time_duration.sum"});
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::ProfilerFailed);
    EXPECT_NE(std::string(e.what()).find("ERR_NVGPUCTRPERM"), std::string::npos) << e.what();
  }
  setenv("RPL_NCU", fake_ncu(dir, "/dev/null", 0, "==PROF== Disconnected").c_str(), 1);
  try {
    rpl::collectors::run_ncu_pass(request(dir), {"gpu__time_duration.sum"});
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::ProfilerFailed);  // ran, but no CSV table
    EXPECT_NE(std::string(e.what()).find("no usable CSV"), std::string::npos) << e.what();
  }
  setenv("RPL_NCU", dir.file("missing-ncu").c_str(), 1);
  try {
    rpl::collectors::run_ncu_pass(request(dir), {"gpu__time_duration.sum"});
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::ProfilerFailed);
  }
  unsetenv("RPL_NCU");
}

namespace {

// A stand-in application for the in-process CUPTI pass: instead of loading librpl_cupti_counters.so (no GPU
// here) it records the environment the pass gave it and writes what the library writes at exit, one
// counters-<pid>.csv per process, under $RPL_COUNTERS_OUT.
std::string fake_cupti_app(const TempDir& dir, int files, int status) {
  const std::string path = dir.file("app.sh");
  std::ofstream f(path);
  f << "#!/bin/sh\nenv | grep -E '^(CUDA_INJECTION64_PATH|RPL_COUNTERS_)' | sort > " << dir.file("app.env") << "\n";
  for (int i = 0; i < files; ++i)
    f << "cat > \"$RPL_COUNTERS_OUT/counters-" << 100 + i << ".csv\" <<'EOF'\n"
      << "==RPL== chip GH100: 2 metric(s) in 1 replay pass(es)\n"
      << "==RPL== unsupported metric sm__maximum_warps_per_active_cycle_pct (CUPTI range profiler on GH100)\n"
      << "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
         "\"Grid Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\",\"sm__maximum_warps_per_active_cycle_pct\"\n"
      << "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"nsecond\",\"%\"\n"
      << "\"0\",\"" << 100 + i << "\",\"app\",\"h\",\"_Z8fma_peakPfi\",\"1\",\"7\",\"(256, 1, 1)\",\"(4224, 1, 1)\",\"0\","
         "\"9.0\",\"1300000\",\"n/a\"\n"
      << "\"1\",\"" << 100 + i << "\",\"app\",\"h\",\"_Z8fma_peakPfi\",\"1\",\"7\",\"(256, 1, 1)\",\"(4224, 1, 1)\",\"0\","
         "\"9.0\",\"1310000\",\"n/a\"\n"
      << "EOF\n";
  f << "exit " << status << "\n";
  f.close();
  chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

TEST(CuptiPass, RunsTheAppWithTheInjectionLibraryAndMergesEveryProcessCsv) {
  TempDir dir;
  std::ofstream(dir.file("librpl_cupti_counters.so")) << "stand-in";
  setenv("RPL_CUPTI_COUNTERS", dir.file("librpl_cupti_counters.so").c_str(), 1);
  auto req = request(dir);
  req.argv = {fake_cupti_app(dir, 2, 0)};
  auto pass = rpl::collectors::run_cupti_counter_pass(
      req, {"gpu__time_duration.sum", "sm__maximum_warps_per_active_cycle_pct"});
  unsetenv("RPL_CUPTI_COUNTERS");
  EXPECT_EQ(pass.tool, "cupti");
  ASSERT_EQ(pass.report.kernels.size(), 4u);
  EXPECT_EQ(pass.report.kernels[3].id, 3);  // renumbered across the processes' files
  EXPECT_EQ(pass.report.kernels[2].process_id, 101);
  EXPECT_EQ(pass.report.value(pass.report.kernels[1], "gpu__time_duration.sum"), 1310000.0);
  EXPECT_FALSE(pass.report.value(pass.report.kernels[0], "sm__maximum_warps_per_active_cycle_pct"));
  EXPECT_TRUE(any_contains(pass.report.warnings, "unsupported metric sm__maximum_warps_per_active_cycle_pct"));
  EXPECT_FALSE(any_contains(pass.report.warnings, "replay pass"));
  const std::string env = read_file(dir.file("app.env"));
  EXPECT_NE(env.find("CUDA_INJECTION64_PATH=" + dir.file("librpl_cupti_counters.so")), std::string::npos) << env;
  EXPECT_NE(env.find("RPL_COUNTERS_METRICS=gpu__time_duration.sum,sm__maximum_warps_per_active_cycle_pct"),
            std::string::npos) << env;
  EXPECT_NE(env.find("RPL_COUNTERS_KERNEL=fma_peak"), std::string::npos) << env;
  EXPECT_NE(env.find("RPL_COUNTERS_PER_KERNEL=0"), std::string::npos) << env;  // every launch
  setenv("RPL_CUPTI_COUNTERS", dir.file("librpl_cupti_counters.so").c_str(), 1);
  req.launches_per_kernel = 3;
  rpl::collectors::run_cupti_counter_pass(req, {"gpu__time_duration.sum"});
  unsetenv("RPL_CUPTI_COUNTERS");
  EXPECT_NE(read_file(dir.file("app.env")).find("RPL_COUNTERS_PER_KERNEL=3"), std::string::npos);
  // The pairing is ncu's: the merged report attaches to the trace like an ncu CSV.
  auto m = rpl::app::match_counter_samples(fma_trace(6).trace, rpl::collectors::ncu_counter_samples(pass.report, {"gpu__time_duration.sum"}, "cupti"));
  EXPECT_EQ(m.matched, 4u);
  // Fewer instances than dispatches (as with --counter-launches): said, naming the tool that measured.
  EXPECT_TRUE(any_contains(m.warnings, "cupti profiled 4 of the 6 dispatch(es)")) << m.warnings.size();
}

TEST(CuptiPass, NoCsvAFailingAppOrNoLibraryAreClearErrors) {
  TempDir dir;
  std::ofstream(dir.file("librpl_cupti_counters.so")) << "stand-in";
  setenv("RPL_CUPTI_COUNTERS", dir.file("librpl_cupti_counters.so").c_str(), 1);
  auto req = request(dir);
  const auto expect_error = [&](rpl::ExitCode code, const std::string& text) {
    try {
      rpl::collectors::run_cupti_counter_pass(req, {"gpu__time_duration.sum"});
      ADD_FAILURE() << "no error for " << text;
    } catch (const rpl::Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  req.argv = {fake_cupti_app(dir, 0, 0)};
  expect_error(rpl::ExitCode::ProfilerFailed, "wrote no counters-<pid>.csv");
  req.argv = {fake_cupti_app(dir, 1, 3)};
  expect_error(rpl::ExitCode::ApplicationFailed, "exited with status 3");
  // What the library writes when CUPTI refuses (no rows, the reason in a note).
  const std::string refusing = dir.file("refusing.sh");
  std::ofstream(refusing) << "#!/bin/sh\nprintf '%s\\n' '==RPL== cuptiProfilerGetCounterAvailability: "
                             "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (counters are restricted to admin users on this "
                             "machine)' '\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"' > \"$RPL_COUNTERS_OUT/counters-1.csv\"\n";
  chmod(refusing.c_str(), 0755);
  req.argv = {refusing};
  expect_error(rpl::ExitCode::ProfilerFailed, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  setenv("RPL_CUPTI_COUNTERS", dir.file("nothing-here.so").c_str(), 1);
  expect_error(rpl::ExitCode::ProfilerFailed, "no such readable file");
  unsetenv("RPL_CUPTI_COUNTERS");
}

TEST(ProfileRooflineAmd, PmcPassesReachTheTraceDatabaseAndTheRoofline) {
  TempDir dir;
  const auto out = dir.file("out");
  auto r = run_cli({"profile", "--roofline", "--runs", "2", "-o", out, "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_ARCH", "gfx942"},
                    {"FAKE_ROCPROFV3_KERNELS", "gemm(float*):4:50000;softmax(float*):2:10000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("profile", out + "/profile.json"), "");
  const auto profile = load(out + "/profile.json");
  const auto& c = profile["counters"];
  EXPECT_EQ(c["vendor"], "amd");
  EXPECT_EQ(c["arch"], "gfx942");
  EXPECT_EQ(c["instances"], 6);
  EXPECT_EQ(c["matched_instances"], 6);
  // gfx942 names, one pmc line per pass, one application run per pass.
  const std::string input = read_file(out + "/runs/counters/counters.txt");
  EXPECT_NE(input.find("TCC_EA0_RDREQ_sum"), std::string::npos) << input;
  EXPECT_EQ(c["passes"].size(), rpl::analysis::split_amd_passes(rpl::analysis::roofline_counter_set("gfx942")).size());
  EXPECT_EQ(c["application_runs"], c["passes"].size());
  // Stored in the representative run's database: every counter of every pass on each of the 6 dispatches,
  // the fake's two dimension rows summed (1000 each).
  SqlFile db(representative_db(profile));
  std::size_t counters = 0;
  for (const auto& p : c["passes"]) counters += p.size();
  EXPECT_EQ(db.number("SELECT COUNT(DISTINCT name) FROM rocpd_info_pmc"), static_cast<double>(counters));
  EXPECT_EQ(c["values_stored"].get<double>(), 6.0 * counters);
  EXPECT_EQ(db.number("SELECT SUM(value) FROM rocpd_pmc_event"), 6000.0 * counters);
  // analyze read them back: both kernels have roofline points from all their dispatches.
  const auto roofline = load(out + "/roofline.json");
  ASSERT_EQ(roofline["kernels"].size(), 2u);
  for (const auto& k : roofline["kernels"]) {
    EXPECT_EQ(k["point"]["profiled_dispatches"], k["dispatch_count"]) << k.dump();
    EXPECT_TRUE(k["point"]["bytes"].contains("hbm")) << k.dump();
  }
}

TEST(ProfileRooflineAmd, Gfx90aUsesItsOwnCounterNamesAndKernelFilterLimitsThePass) {
  TempDir dir;
  const auto out = dir.file("out");
  auto r = run_cli({"profile", "--roofline", "--runs", "1", "--kernel", "softmax", "-o", out, "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_KERNELS", "gemm(float*):4:50000;softmax(float*):2:10000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string input = read_file(out + "/runs/counters/counters.txt");
  EXPECT_NE(input.find("TCC_EA_RDREQ_sum"), std::string::npos) << input;
  EXPECT_EQ(input.find("TCC_EA0_"), std::string::npos) << input;
  const auto c = load(out + "/profile.json")["counters"];
  EXPECT_EQ(c["instances"], 2);  // only softmax's dispatches carry counters
  EXPECT_NE(c["commands"][0].get<std::string>().find("--kernel-include-regex softmax"), std::string::npos);
}

TEST(ProfileRooflineAmd, LaunchesThatCannotBePairedAreReportedNotGuessed) {
  TempDir dir;
  const auto out = dir.file("out");
  auto r = run_cli({"profile", "--roofline", "--runs", "1", "-o", out, "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_KERNELS", "gemm(float*):2:50000"},
                    {"FAKE_ROCPROFV3_COUNTER_KERNELS", "gemm(float*):3:50000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("1 of 3 kernel instance(s) measured by rocprofv3 could not be paired"), std::string::npos) << r.err;
  const auto c = load(out + "/profile.json")["counters"];
  EXPECT_EQ(c["matched_instances"], 2);
  EXPECT_TRUE(any_contains(c["warnings"].get<std::vector<std::string>>(), "more time(s)"));
}

TEST(ProfileRooflineAmd, RdnaPlacesDeviceMemoryBandwidthOnlyAndSaysWhy) {
  // gfx1030: no FLOP counters, but the GL2C request counters give the device-memory bytes: one run per
  // counter (RDNA's per-pass limits are unknown), a bandwidth_only point, and the limitation in roofline.json.
  TempDir dir;
  const auto out = dir.file("out");
  auto r = run_cli({"profile", "--roofline", "--runs", "1", "-o", out, "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_ARCH", "gfx1030"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string input = read_file(out + "/runs/counters/counters.txt");
  EXPECT_NE(input.find("pmc: GL2C_EA_RDREQ_128B_sum\n"), std::string::npos) << input;
  const auto c = load(out + "/profile.json")["counters"];
  EXPECT_EQ(c["passes"].size(), 6u);
  EXPECT_EQ(c["application_runs"], 6);
  EXPECT_EQ(validate_against_schema("roofline", out + "/roofline.json"), "");
  const auto roofline = load(out + "/roofline.json");
  EXPECT_EQ(roofline["status"], "ok");
  EXPECT_EQ(roofline["devices"][0]["roofline_available"], true);
  ASSERT_EQ(roofline["kernels"].size(), 1u);
  const auto& point = roofline["kernels"][0]["point"];
  EXPECT_EQ(point["status"], "bandwidth_only") << point.dump(1);
  EXPECT_GT(point["bytes"]["hbm"]["gbytes_per_s"].get<double>(), 0);
  EXPECT_TRUE(point["total_gflops_per_s"].is_null());
  EXPECT_EQ(point["bound"], "unknown");
  EXPECT_NE(point["reasons"][0].get<std::string>().find("no FLOP counters"), std::string::npos);
}

TEST(ProfileDeepAmd, AttRunIsAnalysedPerDispatchWithItsKernelName) {
  TempDir dir;
  const auto out = dir.file("out");
  auto r = run_cli({"profile", "--deep", "--runs", "1", "--kernel", "gemm", "-o", out, "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_KERNELS", "gemm(float*):4:50000;softmax(float*):2:10000"},
                    {"FAKE_ROCPROFV3_COUNTER_VALUES", "SQ_THREAD_CYCLES_VALU=32000"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("profile", out + "/profile.json"), "");
  const auto c = load(out + "/profile.json")["counters"];
  EXPECT_EQ(c["requested"], nlohmann::json::array({"deep"}));
  // Before the thread trace, the deep-analysis counters (hit rates, VALU / MFMA / thread utilisation): 2 runs.
  const std::string deep_input = read_file(out + "/runs/counters/deep-counters/counters.txt");
  for (const auto& name : rpl::analysis::amd_deep_counters("gfx90a"))
    EXPECT_NE(deep_input.find(name), std::string::npos) << name << " not in " << deep_input;
  EXPECT_EQ(c["passes"].size(), 2u);
  ASSERT_EQ(c["att"].size(), 1u);  // the first gemm dispatch only
  EXPECT_EQ(c["att"][0]["kernel"], "gemm(float*)");
  const auto& deep = c["att"][0]["deep"];
  EXPECT_EQ(deep["source"], "att");
  EXPECT_TRUE(deep["available"].get<bool>());
  EXPECT_GT(deep["instruction_mix"]["BRANCH"].get<double>(), 0.0);  // a real category
  EXPECT_TRUE(c["att_diagnosis"].is_null());
  // Issue 13 item 6: the ATT results reach analysis.json's deep_analysis and the classifier's inputs.
  const auto analysis = load(out + "/analysis.json");
  const nlohmann::json* gemm = nullptr;
  for (const auto& k : analysis["ranking"]["kernels"])
    if (k["name"] == "gemm(float*)") gemm = &k;
  ASSERT_NE(gemm, nullptr) << analysis["ranking"].dump(1);
  ASSERT_FALSE((*gemm)["deep_analysis"].is_null());
  // Both AMD sources: the counters' formulas (the fake's 1000 per counter: SQ_THREAD_CYCLES_VALU 32000 is half of
  // 1000 x 64 lanes), and the ATT run's stalls.
  EXPECT_EQ((*gemm)["deep_analysis"]["source"], "att+counters");
  EXPECT_DOUBLE_EQ((*gemm)["deep_analysis"]["thread_utilization"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ((*gemm)["deep_analysis"]["l2_hit_rate"].get<double>(), 0.5);
  const auto& inputs = (*gemm)["bottleneck"]["inputs"];
  EXPECT_FALSE(inputs["stall_fraction"].is_null()) << inputs.dump();
  EXPECT_EQ(inputs["stall_fraction"], (*gemm)["deep_analysis"]["stall_fraction"]);
  EXPECT_EQ(inputs["thread_utilization"], 0.5);
  // Issue 33: the listing's costliest lines and each traced wave's breakdown (the stand-in's one wave stalls
  // 900 cycles on its global_load, line 2, and 600 on its s_waitcnt, line 3)
  const auto& deep_gemm = (*gemm)["deep_analysis"];
  ASSERT_FALSE(deep_gemm["hot_lines"].empty()) << deep_gemm.dump();
  EXPECT_EQ(deep_gemm["hot_lines"][0]["isa"], "global_load_dword v1, v[2:3], off");
  EXPECT_EQ(deep_gemm["hot_lines"][0]["category"], "VMEM");
  EXPECT_EQ(deep_gemm["hot_lines"][0]["line"], 2);
  ASSERT_EQ(deep_gemm["waves"].size(), 1u);
  EXPECT_EQ(deep_gemm["waves"][0]["shader_engine"], 0);
  EXPECT_DOUBLE_EQ(deep_gemm["waves"][0]["stall_fraction"].get<double>(), 0.7);
  EXPECT_EQ(deep_gemm["waves"][0]["stall_by_category"][0]["name"], "VMEM");
  EXPECT_DOUBLE_EQ(deep_gemm["waves"][0]["stall_by_category"][0]["fraction"].get<double>(), 0.6);
  EXPECT_EQ(validate_against_schema("analysis", out + "/analysis.json"), "");
}

TEST(ProfileDeepAmd, UndecodedAttIsDiagnosed) {
  TempDir dir;
  const auto out = dir.file("out");
  auto r = run_cli({"profile", "--deep", "--runs", "1", "-o", out, "--", "/bin/true"},
                   {path_with_double(), {"FAKE_ROCPROFV3_MODE", "att-undecoded"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = load(out + "/profile.json")["counters"];
  EXPECT_TRUE(c["att"].empty());
  EXPECT_NE(c["att_diagnosis"].get<std::string>().find(".att"), std::string::npos) << c.dump();
}

TEST(ProfileCounters, BadCombinationsAndFailingPassesAreClearErrors) {
  TempDir dir;
  auto r = run_cli({"profile", "--roofline", "--no-rocprof", "-o", dir.file("a"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-rocprof"), std::string::npos) << r.err;
  r = run_cli({"profile", "--roofline", "--runs", "1", "-o", dir.file("b"), "--", "/bin/true"},
              {path_with_double(), {"FAKE_ROCPROFV3_MODE", "fail-counters"}});
  // Fail-safe: the trace's outputs are all written, roofline.json says why there is no roofline, exit 16.
  EXPECT_EQ(r.exit_code, 16) << r.err;
  EXPECT_NE(r.err.find("counter pass"), std::string::npos) << r.err;
  for (const char* f : {"profile.json", "dag.json", "analysis.json", "roofline.json", "report.html"})
    EXPECT_TRUE(std::filesystem::exists(dir.file(std::string("b/") + f))) << f;
  EXPECT_EQ(load(dir.file("b/roofline.json"))["status"], "counter_pass_failed");
  EXPECT_EQ(load(dir.file("b/profile.json"))["roofline"]["status"], "counter_pass_failed");
  r = run_cli({"profile", "--counter-launches", "2", "-o", dir.file("d"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs --roofline, --deep or --counters"), std::string::npos) << r.err;
  r = run_cli({"profile", "--roofline", "--counter-tool", "ncu", "--counter-launches", "2", "-o", dir.file("e"), "--",
               "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--counter-tool cupti"), std::string::npos) << r.err;
  r = run_cli({"profile", "--roofline", "--counter-launches", "0", "-o", dir.file("f"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--counter-launches"), std::string::npos) << r.err;
  r = run_cli({"profile", "--roofline", "--counter-launches", "2", "--runs", "1", "-o", dir.file("g"), "--", "/bin/true"},
              {path_with_double()});  // AMD (the stand-in rocprofv3): rocprofv3 has no per-kernel limit
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("rocprofv3 measures every launch"), std::string::npos) << r.err;
  r = run_cli({"profile", "--roofline", "--counter-tool", "nsight", "-o", dir.file("c"), "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--counter-tool"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nsight"), std::string::npos) << r.err;
}
