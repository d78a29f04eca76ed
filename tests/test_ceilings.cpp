// `rocm-perf ceilings`: the benchmark's output parser, the ceilings document it writes (validated against
// schemas/ceilings.schema.json), the CLI with stand-in benchmarks (shell scripts, clearly not the real
// one), and the real benchmark's "no GPU" answer where it is built and no GPU is present.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/device_specs.hpp"
#include "app/ceilings.hpp"
#include "app/ceilings_file.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/tmpdir.hpp"

namespace fs = std::filesystem;
using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::TempDir;
using rpl::test::validate_against_schema;

namespace {

// The benchmark's line protocol with the ceilings an H100 measured (the values of
// bench/results/2026-11-24/cuda/h100_ceilings.json; that file does not keep the benchmark's raw lines, so the
// best_ms and reps fields here are illustrative, not measured).
const char* kH100Output =
    "RPL_DEVICE index=0 arch=sm_90 sms=132 clock_mhz=1980 name=NVIDIA H100 80GB HBM3\n"
    "RPL_CEILING key=hbm value=3006.4 best_ms=0.7110 reps=10\n"
    "RPL_CEILING key=vector_f64 value=30700.8 best_ms=2.1000 reps=10\n"
    "RPL_CEILING key=vector_f32 value=56250.3 best_ms=2.3000 reps=10\n"
    "RPL_CEILING key=vector_f16 value=64498.5 best_ms=2.4000 reps=10\n"
    "RPL_CEILING key=matrix_f16 value=645783.2 best_ms=3.9000 reps=10\n";

// A stand-in benchmark: a shell script that prints `out` and exits with `status`.
std::string fake_bench(const TempDir& dir, const std::string& out, int status) {
  const std::string path = dir.file("fake_bench.sh");
  std::ofstream(path) << "#!/bin/sh\ncat <<'END'\n" << out << "END\necho 'fake bench stderr' >&2\nexit " << status << "\n";
  chmod(path.c_str(), 0755);
  return path;
}

rpl::ExitCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const rpl::Error& e) {
    return e.code();
  }
  return rpl::ExitCode::Ok;
}

}  // namespace

TEST(CeilingsParse, ReadsEveryMeasurementIntoTheCeilings) {
  auto r = rpl::app::parse_ceilings_bench_output(kH100Output, "bench");
  EXPECT_EQ(r.ceilings.arch, "sm_90");
  EXPECT_EQ(r.ceilings.product_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.sms, 132);
  EXPECT_EQ(r.clock_mhz, 1980);
  ASSERT_EQ(r.measurements.size(), 5u);
  using rpl::analysis::ComputeClass, rpl::analysis::Pipe, rpl::analysis::DataType;
  EXPECT_DOUBLE_EQ(r.ceilings.bandwidth_gbps[0], 3006.4);
  const auto f32 = ComputeClass{Pipe::Vector, DataType::F32}.index();
  const auto mf16 = ComputeClass{Pipe::Matrix, DataType::F16}.index();
  const auto bf16 = ComputeClass{Pipe::Vector, DataType::BF16}.index();
  EXPECT_DOUBLE_EQ(r.ceilings.gflops[f32], 56250.3);
  EXPECT_DOUBLE_EQ(r.ceilings.gflops[mf16], 645783.2);
  EXPECT_DOUBLE_EQ(r.ceilings.gflops[bf16], 0.0);  // not measured
}

TEST(CeilingsParse, ComparesWithTheTableAndExplainsALowMatrixCeiling) {
  auto r = rpl::app::parse_ceilings_bench_output(kH100Output, "bench");
  rpl::app::compare_with_table(r);
  ASSERT_TRUE(r.measurements[0].table_value.has_value());  // the H100 SXM entry has an hbm bandwidth
  bool matrix_note = false;
  for (const auto& n : r.notes) matrix_note = matrix_note || n.find("matrix_f16") != std::string::npos;
  EXPECT_TRUE(matrix_note);  // 420 of 989 TFLOP/s: said, with the wgmma reason
}

TEST(CeilingsParse, BadOutputIsAProfilerFailureNamingTheSource) {
  using rpl::app::parse_ceilings_bench_output;
  EXPECT_EQ(code_of([] { parse_ceilings_bench_output("hello\n", "b"); }), rpl::ExitCode::ProfilerFailed);
  EXPECT_EQ(code_of([] { parse_ceilings_bench_output("RPL_DEVICE index=0 arch=sm_90 sms=1 clock_mhz=1 name=x\n", "b"); }),
            rpl::ExitCode::ProfilerFailed);  // measured nothing
  for (const char* bad : {"RPL_CEILING key=hbm value=-3 best_ms=1 reps=1\n", "RPL_CEILING key=hbm value=abc best_ms=1 reps=1\n",
                          "RPL_CEILING key=l7 value=3 best_ms=1 reps=1\n", "RPL_CEILING key=hbm value=inf best_ms=1 reps=1\n"}) {
    std::string text = std::string("RPL_DEVICE index=0 arch=sm_90 sms=1 clock_mhz=1 name=x\n") + bad;
    try {
      parse_ceilings_bench_output(text, "the-bench");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const rpl::Error& e) {
      EXPECT_EQ(e.code(), rpl::ExitCode::ProfilerFailed);
      EXPECT_NE(std::string(e.what()).find("the-bench"), std::string::npos) << e.what();
    }
  }
}

TEST(CeilingsCli, WritesAValidDocumentThatTheRooflineReadsBack) {
  TempDir dir;
  auto bench = fake_bench(dir, kH100Output, 0);
  auto out = dir.file("c.json");
  auto r = run_cli({"ceilings", "--bench", bench, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(validate_against_schema("ceilings", out), "");
  auto back = rpl::app::read_empirical_ceilings(out);  // what analyze --ceilings reads
  EXPECT_EQ(back.arch, "sm_90");
  EXPECT_DOUBLE_EQ(back.bandwidth_gbps[0], 3006.4);
  EXPECT_NE(r.out.find("vector_f32"), std::string::npos);  // the summary table
  EXPECT_NE(r.err.find("matrix_f16"), std::string::npos);  // the low-matrix note, on stderr
}

TEST(CeilingsCli, JsonPrintsOnlyTheDocument) {
  TempDir dir;
  auto r = run_cli({"ceilings", "--json", "--bench", fake_bench(dir, kH100Output, 0), "-o", dir.file("c.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);  // throws if anything else is on stdout
  EXPECT_EQ(doc["schema_version"], "1.0");
  EXPECT_EQ(doc["device"]["arch"], "sm_90");
  EXPECT_EQ(doc, nlohmann::json::parse(read_file(dir.file("c.json"))));
}

TEST(CeilingsCli, NoGpuIsExitCode14AndSaysWhatToDoOnAmd) {
  TempDir dir;
  std::ofstream(dir.file("c.json")) << "previous";
  auto r = run_cli({"ceilings", "--bench", fake_bench(dir, "", 3), "-o", dir.file("c.json")});
  EXPECT_EQ(r.exit_code, 14);
  EXPECT_NE(r.err.find("no usable NVIDIA GPU"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AMD"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir.file("c.json")), "previous");  // an existing file is left alone
}

TEST(CeilingsCli, FailingOrGarbledBenchmarkIsExitCode8WithItsStderr) {
  TempDir dir;
  auto r = run_cli({"ceilings", "--bench", fake_bench(dir, kH100Output, 4), "-o", dir.file("c.json")});
  EXPECT_EQ(r.exit_code, 8);
  EXPECT_NE(r.err.find("fake bench stderr"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("c.json")));
  r = run_cli({"ceilings", "--bench", fake_bench(dir, "nonsense", 0), "-o", dir.file("c.json")});
  EXPECT_EQ(r.exit_code, 8);
  EXPECT_FALSE(fs::exists(dir.file("c.json")));
  r = run_cli({"ceilings", "--bench", dir.file("missing"), "-o", dir.file("c.json")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("missing"), std::string::npos) << r.err;
}

TEST(CeilingsCli, UnwritableOutputIsExitCode10) {
  TempDir dir;
  auto r = run_cli({"ceilings", "--bench", fake_bench(dir, kH100Output, 0), "-o", dir.file("no/such/dir/c.json")});
  EXPECT_EQ(r.exit_code, 10) << r.err;
}

TEST(CeilingsCli, RealBenchmarkWithoutAGpuSaysSo) {
#ifndef RPL_CEILINGS_BENCH_PATH
  GTEST_SKIP() << "rpl_ceilings_bench was not built (no nvcc at configure time)";
#else
  if (fs::exists("/dev/nvidia0")) GTEST_SKIP() << "an NVIDIA GPU is present: the GPU suite measures it (scripts/gpu/roofline_suite.sh)";
  TempDir dir;
  auto r = run_cli({"ceilings", "--bench", RPL_CEILINGS_BENCH_PATH, "-o", dir.file("c.json")});
  EXPECT_EQ(r.exit_code, 14) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
#endif
}
