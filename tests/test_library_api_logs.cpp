// Library calls on NVIDIA from the libraries' own API logs (issue 33): cuBLAS (CUBLAS_LOGINFO_DBG), cuBLASLt
// (CUBLASLT_LOG_LEVEL=5) and cuDNN (CUDNN_LOGLEVEL_DBG=3) parsed into calls, their wall-clock times converted to the
// trace's clock, and linked to the kernels their thread launched (analysis/logged_library_calls.hpp).
//
// The log excerpts in tests/data/library_logs/ are real: records copied unchanged from the logs that cuBLAS 13.1.0,
// cuBLASLt and cuDNN 9.19 wrote on one H200 under `profile --library-trace` (PyTorch 2.11, CUDA 13.0;
// bench/results/2026-11-29/cuda/library_logging_gpu/). The malformed records further down are made up.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include <sys/stat.h>

#include "analysis/logged_library_calls.hpp"
#include "collectors/collector_factory.hpp"
#include "platform/platform.hpp"
#include "collectors/nvidia/library_api_logs.hpp"
#include "report/library_trace.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/schema_check.hpp"
#include "testing/tmpdir.hpp"

using rpl::test::read_file;
using rpl::test::TempDir;

namespace {

constexpr rpl::TimeNs kSecond = 1'000'000'000;
constexpr int64_t kEpoch111000 = 1795950600;  // 2026-11-29T11:10:00 UTC, seconds since 1970 (the run's logs)

std::string real_log(const char* name) { return read_file(std::string(RPL_SOURCE_DIR) + "/tests/data/library_logs/" + name); }

template <typename Parse>
void expect_corrupt(Parse parse, const std::string& text, const char* where) {
  try {
    parse(text, "dir/lib.log");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::InputCorrupt);
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(LibraryApiLogs, CublasCallsWithArgumentsTimesProcessAndThread) {
  const auto calls = rpl::collectors::parse_cublas_log(real_log("cublas.log"), "cublas.log");
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].library, "cuBLAS");
  EXPECT_EQ(calls[0].function, "cublasCreate_v2");
  EXPECT_FALSE(calls[0].may_launch_work);
  EXPECT_EQ(calls[1].function, "cublasSetStream_v2");
  EXPECT_FALSE(calls[1].may_launch_work);
  EXPECT_EQ(calls[2].function, "cublasSgemm_v2");
  EXPECT_TRUE(calls[2].may_launch_work);
  EXPECT_EQ(calls[2].arguments, "transa=CUBLAS_OP_N transb=CUBLAS_OP_N m=1024 n=512 k=768");
  EXPECT_EQ(calls[2].pid, 513);
  EXPECT_EQ(calls[2].thread, 139788713652992ull);  // pthread_self
  EXPECT_EQ(calls[2].time, kEpoch111000 * kSecond);  // read as UTC until to_trace_clock
  EXPECT_EQ(calls[2].resolution, kSecond);
  EXPECT_EQ(calls[2].end, 0);  // cuBLAS logs no return
  EXPECT_EQ(calls[2].log_file, "cublas.log");
  EXPECT_EQ(calls[3].function, "cublasGemmEx");
  EXPECT_EQ(calls[3].arguments,
            "transa=CUBLAS_OP_N transb=CUBLAS_OP_N m=1024 n=512 k=768 Atype=CUDA_R_16BF Btype=CUDA_R_16BF "
            "Ctype=CUDA_R_16BF computeType=CUBLAS_COMPUTE_32F");
  EXPECT_EQ(calls[3].time, (kEpoch111000 + 4) * kSecond);
  EXPECT_TRUE(rpl::collectors::parse_cublas_log("", "cublas.log").empty());
}

TEST(LibraryApiLogs, CublasLtApiLinesAreCallsAndTheTraceLineGivesTheirDescriptors) {
  const auto calls = rpl::collectors::parse_cublaslt_log(real_log("cublaslt_513.log"), "cublaslt_513.log");
  ASSERT_EQ(calls.size(), 5u);  // Info lines add none; each Trace line joins its Api line
  EXPECT_EQ(calls[0].function, "cublasLtCtxInit");
  EXPECT_FALSE(calls[0].may_launch_work);
  EXPECT_EQ(calls[1].function, "cublasLtSSSMatmulAlgoGetHeuristic");
  EXPECT_FALSE(calls[1].may_launch_work);
  // cuBLAS's own fp32 GEMM, logged by cuBLASLt under a typed name; the Api line names the descriptors by pointer,
  // the Trace line writes them out: D is m x n, A (not transposed) m x k
  EXPECT_EQ(calls[2].function, "cublasLtSSSMatmul");
  EXPECT_TRUE(calls[2].may_launch_work);
  EXPECT_EQ(calls[2].arguments, "m=1024 n=512 k=768 transa=OP_N transb=OP_N Atype=R_32F Dtype=R_32F computeType=COMPUTE_32F");
  EXPECT_EQ(calls[2].pid, 513);
  EXPECT_EQ(calls[2].thread, 0u);  // cuBLASLt logs no thread
  EXPECT_EQ(calls[2].time, kEpoch111000 * kSecond);
  EXPECT_EQ(calls[2].resolution, kSecond);
  EXPECT_EQ(calls[3].function, "cublasLtMatmul");  // F.linear with bias
  EXPECT_EQ(calls[3].arguments, "m=1024 n=512 k=768 transa=OP_N transb=OP_N Atype=R_32F Dtype=R_32F computeType=COMPUTE_32F");
  EXPECT_EQ(calls[4].function, "cublasLtTSTMatmul");  // the bf16 GEMM
  EXPECT_EQ(calls[4].arguments, "m=1024 n=512 k=768 transa=OP_N transb=OP_N Atype=R_16BF Dtype=R_16BF computeType=COMPUTE_32F");
  EXPECT_EQ(calls[4].time, (kEpoch111000 + 4) * kSecond);
  // Older cuBLASLt lines carry no time ([library][pid][category][function], a published log's shape): untimed.
  const auto untimed = rpl::collectors::parse_cublaslt_log(
      "[cublasLt][3794797][Trace][cublasLtSSSMatmul] A=0X400380DD0A00 Adesc=[type=R_32F rows=1000 cols=1000 ld=1000] "
      "Ddesc=[type=R_32F rows=1000 cols=1000 ld=1000] computeDesc=[computeType=COMPUTE_32F_FAST_TF32 scaleType=R_32F "
      "smCountTarget=108] algo=[algoId=21 tile=MATMUL_TILE_128x128]\n"
      "[cublasLt][3794797][Error][cublasLtMatmulAlgoGetHeuristic] Failed to query heuristics.\n",
      "lt.log");
  ASSERT_EQ(untimed.size(), 1u);
  EXPECT_EQ(untimed[0].pid, 3794797);
  EXPECT_EQ(untimed[0].resolution, 0);
  EXPECT_EQ(untimed[0].arguments,
            "m=1000 n=1000 k=1000 transa=OP_N transb=OP_N Atype=R_32F Dtype=R_32F computeType=COMPUTE_32F_FAST_TF32");
}

TEST(LibraryApiLogs, CudnnReturnRecordsEndTheirCalls) {
  const auto calls = rpl::collectors::parse_cudnn_log(real_log("cudnn.log"), "cudnn.log");
  ASSERT_EQ(calls.size(), 4u);  // the return record of cudnnBackendExecute is no call
  EXPECT_EQ(calls[0].function, "cudnnGetVersion");
  EXPECT_FALSE(calls[0].may_launch_work);
  EXPECT_EQ(calls[1].function, "cudnnCreate");
  const auto& ex = calls[2];
  EXPECT_EQ(ex.library, "cuDNN");
  EXPECT_EQ(ex.function, "cudnnBackendExecute");
  EXPECT_TRUE(ex.may_launch_work);
  EXPECT_EQ(ex.pid, 513);
  EXPECT_EQ(ex.thread, 513u);  // the OS thread id
  EXPECT_EQ(ex.time, (kEpoch111000 + 3) * kSecond + 152'061'000);
  EXPECT_EQ(ex.resolution, 1000);  // microseconds
  EXPECT_EQ(ex.end, (kEpoch111000 + 3) * kSecond + 161'576'000);  // its return record
  const auto& internal = calls[3];
  EXPECT_EQ(internal.function, "cudnnBackendExecuteInternal");
  EXPECT_EQ(internal.end, 0);  // logged no return
  EXPECT_EQ(internal.arguments.rfind("dataType=CUDNN_DATA_FLOAT dimA=[8,16,56,56] strideA=[50176,3136,56,1]", 0), 0u)
      << internal.arguments;
  EXPECT_NE(internal.arguments.find("mode=CUDNN_CROSS_CORRELATION"), std::string::npos);
  EXPECT_NE(internal.arguments.find("padA=[1,1]"), std::string::npos);
  // W! and E! records are skipped
  const auto skipped = rpl::collectors::parse_cudnn_log(
      "E! CuDNN (v91900 56) function cudnnBackendFinalize() called:\ne!         Error: CUDNN_STATUS_NOT_SUPPORTED\n"
      "e! Time: 2026-11-29T11:10:03.403001 (0d+0h+0m+1s since start)\ne! Process=513; Thread=513; GPU=0.\n",
      "cudnn.log");
  EXPECT_TRUE(skipped.empty());
}

TEST(LibraryApiLogs, ACorruptRecordNamesTheFileAndLine) {
  auto cublas = [](const std::string& t, const std::string& p) { return rpl::collectors::parse_cublas_log(t, p); };
  const std::string header = "I! cuBLAS (v13.0) function cublasStatus_t cublasSgemm_v2(int) called:\n";
  expect_corrupt(cublas, header + "i! Time: 2026-13-29T07:41:13 elapsed\n", "dir/lib.log:2: unreadable time");
  expect_corrupt(cublas, header + "i! Time: 2026-11-29T07:41:13\ni!Process=31337; Thread=main\n",
                 "dir/lib.log:3: thread 'main' is not a number");
  expect_corrupt(cublas, "I! cuBLAS (v13.0) function called:\n", "dir/lib.log:1: a call header without a function");
  // not corrupt: a record without its Time line (interleaved with another thread's) is dropped, and an I! line of
  // another shape is no call
  const auto kept = rpl::collectors::parse_cublas_log(
      header + "i!  m: type=int; val=1\nI! cuBLAS (v13.0) a hint\n" + header +
          "i! Time: 2026-11-29T07:41:13 elapsed\ni!Process=1; Thread=2\n",
      "lib.log");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].thread, 2u);
  EXPECT_TRUE(rpl::collectors::parse_cublaslt_log("[cublasLt] a line of another kind\n", "lt.log").empty());
  auto lt = [](const std::string& t, const std::string& p) { return rpl::collectors::parse_cublaslt_log(t, p); };
  expect_corrupt(lt, "[2026-11-29 07:41:13][cublasLt][pid][Api][cublasLtMatmul] A=1\n", "dir/lib.log:1: process 'pid'");
  expect_corrupt(lt, "\n[2026-11-29 7:41][cublasLt][1][Api][cublasLtMatmul]\n", "dir/lib.log:2: unreadable time");
  expect_corrupt(lt, "[2026-11-29 07:41:13][cublasLt][1][Api]\n", "dir/lib.log:1: fewer than five");
  expect_corrupt(lt, "[cublasLt][1][Api]\n", "dir/lib.log:1: fewer than four");
  auto cudnn = [](const std::string& t, const std::string& p) { return rpl::collectors::parse_cudnn_log(t, p); };
  expect_corrupt(cudnn,
                 "I! CuDNN (v91900 70) function cudnnCreate() called:\ni! Time: 2026-11-29T07:41:13.4 (0d)\n"
                 "i! Process=x; Thread=1.\n",
                 "dir/lib.log:3: process 'x' is not a number");
}

TEST(LibraryApiLogs, TheEnvironmentAsksEachLibraryUnlessTheUserDid) {
  const char* vars[] = {"CUBLAS_LOGINFO_DBG", "CUBLAS_LOGDEST_DBG", "CUBLASLT_LOG_LEVEL", "CUBLASLT_LOG_MASK",
                        "CUBLASLT_LOG_FILE", "CUDNN_LOGLEVEL_DBG", "CUDNN_LOGDEST_DBG", "CUDNN_LOGINFO_DBG"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* v : vars) {
    const char* was = std::getenv(v);
    saved.emplace_back(v, was ? std::optional<std::string>(was) : std::nullopt);
    unsetenv(v);
  }
  auto all = rpl::collectors::library_log_environment("/run/library_logs");
  EXPECT_TRUE(all.kept.empty());
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"CUBLAS_LOGINFO_DBG", "1"},         {"CUBLAS_LOGDEST_DBG", "/run/library_logs/cublas.log"},
      {"CUBLASLT_LOG_LEVEL", "5"},         {"CUBLASLT_LOG_FILE", "/run/library_logs/cublaslt_%i.log"},
      {"CUDNN_LOGLEVEL_DBG", "3"},         {"CUDNN_LOGDEST_DBG", "/run/library_logs/cudnn.log"}};
  EXPECT_EQ(all.env, expected);
  setenv("CUDNN_LOGDEST_DBG", "stderr", 1);
  auto mine = rpl::collectors::library_log_environment("/run/library_logs");
  ASSERT_EQ(mine.kept.size(), 1u);
  EXPECT_EQ(mine.kept[0], "cuDNN (CUDNN_LOGDEST_DBG is set)");
  EXPECT_EQ(mine.env.size(), 4u);
  for (const auto& [name, value] : mine.env) EXPECT_EQ(name.find("CUDNN"), std::string::npos) << name;
  for (const auto& [name, value] : saved)
    if (value) setenv(name.c_str(), value->c_str(), 1);
    else unsetenv(name.c_str());
}

TEST(LibraryApiLogs, LogsInAFolderAreReadAndPutOnTheTraceClock) {
  TempDir dir;
  EXPECT_TRUE(rpl::collectors::read_library_api_logs(dir.file("none")).empty());
  std::ofstream(dir.file("cublas.log")) << real_log("cublas.log");
  std::ofstream(dir.file("cublaslt_513.log")) << real_log("cublaslt_513.log");
  std::ofstream(dir.file("cudnn.log")) << real_log("cudnn.log");
  try {
    rpl::collectors::read_library_api_logs(dir.path().string());
    ADD_FAILURE() << "logs without clock.txt were read";
  } catch (const rpl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("clock.txt"), std::string::npos) << e.what();
  }
  // The run started at 12:09:57 local time (UTC+1) = 11:09:57 UTC, 500 s after boot on the trace's clock.
  const rpl::collectors::LibraryLogClock clock{(kEpoch111000 - 3) * kSecond, 500 * kSecond, 3600};
  rpl::collectors::write_library_log_clock(dir.path().string(), clock);
  EXPECT_EQ(read_file(dir.file("clock.txt")), "realtime_ns=1795950597000000000\ntrace_clock_ns=500000000000\nutc_offset_s=3600\n");
  const auto calls = rpl::collectors::read_library_api_logs(dir.path().string());
  ASSERT_EQ(calls.size(), 13u);  // 4 cuBLAS, 5 cuBLASLt, 4 cuDNN
  // the logs' 11:10:00 read as local time is 10:10:00 UTC: an hour before the run started
  EXPECT_EQ(calls[2].function, "cublasSgemm_v2");
  EXPECT_EQ(calls[2].time, 500 * kSecond + 3 * kSecond - 3600 * kSecond);
  EXPECT_EQ(calls[11].function, "cudnnBackendExecute");
  EXPECT_EQ(calls[11].time, 500 * kSecond + 6 * kSecond - 3600 * kSecond + 152'061'000);
  EXPECT_EQ(calls[11].end, 500 * kSecond + 6 * kSecond - 3600 * kSecond + 161'576'000);
  std::ofstream(dir.file("cudnn.log"), std::ios::app) << "I! CuDNN (v91900 70) function () called:\n";
  try {
    rpl::collectors::read_library_api_logs(dir.path().string());
    ADD_FAILURE() << "a corrupt cudnn.log was read";
  } catch (const rpl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cudnn.log:"), std::string::npos) << e.what();
  }
}

namespace {

const char* const kGemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1_cublas";
const char* const kConv = "sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize128x128x64_cudnn";
const char* const kFill = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >";
constexpr rpl::TimeNs kS = 100 * kSecond;  // the trace's second "07:41:13"
constexpr uint32_t kThread = 77;
constexpr uint64_t kPthread = (0x7f00ull << 32) | kThread;  // a 64-bit thread id whose low 32 bits are the trace's

struct Fixture {
  rpl::test::InMemoryTrace t;
  rpl::Index gemm, conv, fill;
  Fixture() {
    t.add_process(31337);
    t.add_agent("sm_90");
    gemm = t.add_symbol(kGemm);
    conv = t.add_symbol(kConv);
    fill = t.add_symbol(kFill);
  }
  // cudaLaunchKernel at `host` on `thread`; the kernel runs 10 us later for 20 us.
  void launch(rpl::Index symbol, rpl::TimeNs host, uint32_t thread = kThread) { t.add_cuda_launch(symbol, host, thread); }
};

rpl::LoggedLibraryCall logged(const char* library, const char* function, rpl::TimeNs time, rpl::TimeNs resolution,
                              uint64_t thread, int64_t pid = 31337) {
  rpl::LoggedLibraryCall c;
  c.library = library;
  c.function = function;
  c.time = time;
  c.resolution = resolution;
  c.thread = thread;
  c.pid = pid;
  c.arguments = "m=1";
  c.may_launch_work = std::string(function).find("Create") == std::string::npos;
  return c;
}

}  // namespace

TEST(LoggedLibraryCalls, LinkedByTimeWindowByOrderOrNotAtAll) {
  Fixture f;
  f.launch(f.conv, kS + 1'050'000);
  // the driver call inside that runtime call, with its correlation id, listed first: the runtime call launches
  rpl::ApiCall driver = f.t.trace.api_calls.back();
  driver.start += 500;
  driver.end -= 500;
  driver.name = f.t.trace.strings.intern("cuLaunchKernel");
  f.t.trace.api_calls.insert(f.t.trace.api_calls.begin(), driver);
  f.launch(f.fill, kS + 1'060'000);           // ATen's: no library's
  f.launch(f.gemm, kS + 1'070'000);           // cuBLAS's, inside the cuDNN call's window: not cuDNN's
  f.launch(f.gemm, kS + 2'000'000);
  f.launch(f.gemm, kS + 5'000'000, 78);       // another thread: not the logged thread's
  for (int i = 0; i < 3; ++i) f.launch(f.gemm, kS + kSecond + 100'000 * (i + 1));
  const std::vector<rpl::LoggedLibraryCall> calls = {
      logged("cuDNN", "cudnnBackendExecute", kS + 1'000'000, 1'000, 31339 /* launched nothing in the trace */),
      logged("cuBLAS", "cublasGemmEx", kS, kSecond, kPthread),
      logged("cuBLAS", "cublasGemmEx", kS, kSecond, kPthread),
      logged("cuBLAS", "cublasGemmEx", kS + kSecond, kSecond, kPthread),  // 2 calls, 3 launches: ambiguous
      logged("cuBLAS", "cublasGemmEx", kS + kSecond, kSecond, kPthread),
      logged("cuBLASLt", "cublasLtMatmulDescCreate", kS, kSecond, 0),
      logged("cuBLASLt", "cublasLtMatmul", kS, kSecond, 0, 999),  // a process the trace does not hold
      logged("cuBLASLt", "cublasLtSSSMatmul", 0, 0, 0),             // a line without a time
  };
  rpl::analysis::LoggedCallLinks links;
  const auto out = rpl::analysis::logged_library_calls(f.t.trace, calls, &links);
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(links.calls, 8u);
  EXPECT_EQ(links.untimed, 1u);
  EXPECT_EQ(links.set_up, 1u);
  EXPECT_EQ(links.time_window, 1u);
  EXPECT_EQ(links.order, 2u);
  EXPECT_EQ(links.ambiguous, 2u);
  EXPECT_EQ(links.not_in_trace, 1u);
  EXPECT_EQ(links.linked_kernels, 3u);
  auto find = [&](const char* function, rpl::TimeNs start) -> const rpl::analysis::LibraryCall& {
    for (const auto& c : out)
      if (c.call.function == function && c.start == start) return c;
    ADD_FAILURE() << function << " at " << start;
    return out.front();
  };
  // a logged thread that launched nothing in the trace: any thread of the process, cuDNN's kernels only
  const auto& conv = find("cudnnBackendExecute", kS + 1'000'000);
  EXPECT_EQ(conv.link, rpl::analysis::CallLink::TimeWindow);
  EXPECT_EQ(conv.gpu_kernels, 1u);
  EXPECT_EQ(conv.gpu_busy_ns, 20'000);
  EXPECT_EQ(conv.end, kS + 1'052'000);  // the end of its launch call (the runtime's, not the driver call inside)
  // two GEMMs logged in the same second, two cuBLAS launches on their thread: one each, in order; a whole-second
  // time stamp gives way to the first launch
  const auto& first = find("cublasGemmEx", kS + 1'070'000);
  EXPECT_EQ(first.link, rpl::analysis::CallLink::Order);
  EXPECT_EQ(first.gpu_kernels, 1u);
  EXPECT_EQ(first.end, kS + 1'072'000);
  EXPECT_EQ(first.thread, kThread);
  EXPECT_EQ(find("cublasGemmEx", kS + 2'000'000).link, rpl::analysis::CallLink::Order);
  EXPECT_EQ(find("cublasGemmEx", kS + kSecond).link, rpl::analysis::CallLink::None);
  const auto& other = find("cublasLtMatmul", kS);
  EXPECT_EQ(other.process, rpl::kNoIndex);
  EXPECT_EQ(other.pid, 999);
  EXPECT_EQ(other.gpu_kernels, 0u);
  EXPECT_EQ(to_string(rpl::analysis::CallLink::Order), "order");
}

TEST(LoggedLibraryCalls, ALogOnAnotherClockLinksNothing) {
  Fixture f;
  f.launch(f.gemm, kS + 1'000);
  // an hour away (a wrong UTC offset): outside the process's trace
  const auto out = rpl::analysis::logged_library_calls(
      f.t.trace, {logged("cuBLAS", "cublasGemmEx", kS - 3600 * kSecond, kSecond, kPthread)}, nullptr);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].link, rpl::analysis::CallLink::None);
  rpl::analysis::LoggedCallLinks links;
  rpl::analysis::logged_library_calls(f.t.trace, {logged("cuBLAS", "cublasGemmEx", kS - 3600 * kSecond, kSecond, kPthread)},
                                      &links);
  EXPECT_EQ(links.not_in_trace, 1u);
}

TEST(LoggedLibraryCalls, WrittenToLibraryTraceCsvAndJsonWithTheirLinks) {
  TempDir dir;
  Fixture f;
  f.launch(f.conv, kS + 1'050'000);
  f.launch(f.gemm, kS + 1'070'000);
  const std::vector<rpl::LoggedLibraryCall> calls = {logged("cuDNN", "cudnnBackendExecute", kS + 1'000'000, 1'000, 31339),
                                                     logged("cuBLAS", "cublasGemmEx", kS, kSecond, kPthread)};
  const auto written = rpl::report::write_library_outputs(dir.path().string(), f.t.trace, "API logs", {}, &calls);
  EXPECT_EQ(written.calls, 2u);
  EXPECT_TRUE(written.kernels_without_calls.empty());  // both libraries' kernels have their calls now
  const std::string csv = read_file(dir.file("library_trace.csv"));
  EXPECT_NE(csv.find("\"cuDNN\",\"cudnnBackendExecute\",31337,77,100001000000,100001052000,52000,1,0,20000,\"\","
                     "\"time_window\",\"m=1\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\"cuBLAS\",\"cublasGemmEx\",31337,77,100001070000,100001072000,2000,1,0,20000,\"\",\"time_window\""),
            std::string::npos)
      << csv;
  EXPECT_EQ(rpl::test::validate_against_schema("library-calls", dir.file("library_calls.json")), "");
  const auto doc = nlohmann::json::parse(read_file(dir.file("library_calls.json")));
  EXPECT_EQ(doc["calls"], 2);
  EXPECT_EQ(doc["logged_calls"]["linked_by_time_window"], 2);
  EXPECT_EQ(doc["logged_calls"]["linked_kernels"], 2);
  EXPECT_EQ(doc["libraries"], nlohmann::json::array({"cuBLAS", "cuDNN"}));
}

TEST(LoggedLibraryCalls, MarkerRangesOfALibraryWinOverItsLog) {
  Fixture f;
  f.launch(f.gemm, kS + 1'070'000);
  rpl::ApiCall range;
  range.start = kS + 1'060'000;
  range.end = kS + 1'080'000;
  range.process = 0;
  range.thread = kThread;
  range.name = f.t.trace.strings.intern("cublasGemmEx");
  range.category = f.t.trace.strings.intern("MARKER_CORE_API");
  f.t.trace.api_calls.push_back(range);
  rpl::report::LoggedCallsSummary summary;
  const auto calls = rpl::report::library_calls_with_logged(
      f.t.trace, {logged("cuBLAS", "cublasGemmEx", kS, kSecond, kPthread), logged("cuDNN", "cudnnBackendExecute", kS, 1'000, 1)},
      &summary);
  ASSERT_EQ(calls.size(), 2u);  // the range, and cuDNN's logged call
  EXPECT_EQ(calls[0].call.library, "cuDNN");
  EXPECT_EQ(calls[1].link, rpl::analysis::CallLink::MarkerRange);
  EXPECT_EQ(summary.superseded, std::vector<std::string>{"cuBLAS"});
  EXPECT_EQ(summary.links.calls, 1u);
}

// The collector asks the libraries for their logs only with --library-trace, into the run's folder, beside the
// clocks that convert their times. The application here is a script that records its environment (no GPU, so the
// collector then fails for want of a trace, as it should).
TEST(LibraryApiLogs, TheCudaCollectorSetsTheLoggingOnlyWhenAsked) {
  TempDir dir;
  for (const char* v : {"CUBLAS_LOGINFO_DBG", "CUBLAS_LOGDEST_DBG", "CUBLASLT_LOG_LEVEL", "CUBLASLT_LOG_MASK",
                        "CUBLASLT_LOG_FILE", "CUDNN_LOGLEVEL_DBG", "CUDNN_LOGDEST_DBG", "CUDNN_LOGINFO_DBG"})
    ASSERT_EQ(std::getenv(v), nullptr) << v << " is set in the test's environment";
  std::ofstream(dir.file("librpl_cuda_collector.so")) << "stand-in";
  const std::string app = dir.file("app.sh");
  std::ofstream(app) << "#!/bin/sh\nenv | grep -E '^(CUBLAS|CUDNN)' | sort > \"$0.env\"\n";
  chmod(app.c_str(), 0755);
  setenv("RPL_CUDA_COLLECTOR", dir.file("librpl_cuda_collector.so").c_str(), 1);
  for (bool asked : {false, true}) {
    rpl::platform::CollectRequest req;
    req.argv = {app};
    req.run_dir = dir.file(asked ? "run-asked" : "run-plain");
    std::filesystem::create_directories(req.run_dir);
    req.trace.library_calls = asked;
    EXPECT_THROW(rpl::collectors::make_cuda_collector()->collect(req), rpl::Error);
    const std::string env = read_file(app + ".env");
    const std::string logs = std::filesystem::absolute(req.run_dir).string() + "/library_logs";
    if (!asked) {
      EXPECT_EQ(env, "");
      EXPECT_FALSE(std::filesystem::exists(logs));
      continue;
    }
    EXPECT_EQ(env, "CUBLASLT_LOG_FILE=" + logs + "/cublaslt_%i.log\nCUBLASLT_LOG_LEVEL=5\nCUBLAS_LOGDEST_DBG=" + logs +
                       "/cublas.log\nCUBLAS_LOGINFO_DBG=1\nCUDNN_LOGDEST_DBG=" + logs + "/cudnn.log\nCUDNN_LOGLEVEL_DBG=3\n");
    EXPECT_NE(read_file(logs + "/clock.txt").find("trace_clock_ns="), std::string::npos);
  }
  unsetenv("RPL_CUDA_COLLECTOR");
}

// cuDNN 9 logs returns: the public call owns what its thread launched before it returned, not the internal call it
// made; and a whole-second cuBLAS group's window ends where a call of another log surely started after it.
TEST(LoggedLibraryCalls, AReturnedCallOwnsItsLaunchesAndLaterLogsBoundWindows) {
  Fixture f;
  f.launch(f.conv, kS + 1'050'000);
  f.launch(f.gemm, kS + 300'000'000);               // cuBLAS's GEMM in the second logged as kS
  f.launch(f.gemm, kS + kSecond + 300'000'000);     // the cuBLASLt call's, a second later
  auto exec = logged("cuDNN", "cudnnBackendExecute", kS + 1'000'000, 1'000, kThread);
  exec.end = kS + 1'200'000;
  const std::vector<rpl::LoggedLibraryCall> calls = {
      exec, logged("cuDNN", "cudnnBackendExecuteInternal", kS + 1'010'000, 1'000, kThread),
      logged("cuBLAS", "cublasGemmEx", kS, kSecond, kPthread),
      logged("cuBLASLt", "cublasLtMatmul", kS + kSecond, kSecond, 0)};
  rpl::analysis::LoggedCallLinks links;
  const auto out = rpl::analysis::logged_library_calls(f.t.trace, calls, &links);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(links.time_window, 3u);
  EXPECT_EQ(links.no_kernels, 1u);  // the internal call
  for (const auto& c : out) {
    if (c.call.function == "cudnnBackendExecute") {
      EXPECT_EQ(c.gpu_kernels, 1u);
      EXPECT_EQ(c.start, kS + 1'000'000);
      EXPECT_EQ(c.end, kS + 1'200'000);  // its return, not its launch's end
    } else if (c.call.function == "cudnnBackendExecuteInternal") {
      EXPECT_EQ(c.gpu_kernels, 0u);
    } else {
      EXPECT_EQ(c.gpu_kernels, 1u) << c.call.function;  // without the bound cuBLAS's window would hold both GEMMs
    }
  }
}

// A split-K GEMM launches its reduction too: 2 identical calls in one second with 4 launches take 2 each, in order;
// 2 different calls with 4 launches stay ambiguous.
TEST(LoggedLibraryCalls, IdenticalCallsSharingASecondSplitTheirLaunchesEvenly) {
  for (bool same : {true, false}) {
    Fixture f;
    for (int i = 0; i < 4; ++i) f.launch(f.gemm, kS + 100'000 * (i + 1));
    auto second = logged("cuBLAS", "cublasSgemm_v2", kS, kSecond, kPthread);
    if (!same) second.arguments = "m=2";
    rpl::analysis::LoggedCallLinks links;
    const auto out = rpl::analysis::logged_library_calls(
        f.t.trace, {logged("cuBLAS", "cublasSgemm_v2", kS, kSecond, kPthread), second}, &links);
    EXPECT_EQ(links.order, same ? 2u : 0u);
    EXPECT_EQ(links.ambiguous, same ? 0u : 2u);
    if (same) {
      EXPECT_EQ(out[0].gpu_kernels, 2u);
      EXPECT_EQ(out[0].start, kS + 100'000);
      EXPECT_EQ(out[1].start, kS + 300'000);
      EXPECT_EQ(out[1].end, kS + 402'000);
    }
  }
}
