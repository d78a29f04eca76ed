// Library calls on NVIDIA from the libraries' own API logs (issue 33): cuBLAS (CUBLAS_LOGINFO_DBG), cuBLASLt
// (CUBLASLT_LOG_LEVEL=5) and cuDNN (CUDNN_LOGLEVEL_DBG=3) parsed into calls, their wall-clock times converted to the
// trace's clock, and linked to the kernels their thread launched (analysis/logged_library_calls.hpp).
//
// The log excerpts below are WRITTEN FROM THE DOCUMENTED FORMATS (NVIDIA's cuBLAS / cuBLASLt / cuDNN logging
// documentation and logs published with the same layout), not copied from a run of ours: they stand in until the
// GPU run of bench/cuda/library_trace_logging_gpu.sh (request /work/notes/gpu-requests/seeds33.md) gives real
// excerpts to replace them.
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
constexpr int64_t kEpoch074113 = 1795938073;  // 2026-11-29T07:41:13 UTC, seconds since 1970

// cuBLAS 13 (CUBLAS_LOGINFO_DBG=1): a handle, a stream, two GEMMs, and a call cut off when the process ended.
const char* const kCublasLog =
    "I! cuBLAS (v13.0) function cublasStatus_t cublasCreate_v2(cublasContext**) called:\n"
    "i!  handle: type=cublasHandle_t; val=POINTER (IN HEX:0x0x7ffd2c1e5a40)\n"
    "i! Time: 2026-11-29T07:41:12 elapsed from start 0.000000 minutes or 0.000000 seconds\n"
    "i!Process=31337; Thread=139872345675597; GPU=0; Handle=POINTER (IN HEX:0x(nil))\n"
    "i! COMPILED WITH: GNU GCC/G++ / 11.4.0\n"
    "I! cuBLAS (v13.0) function cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t) called:\n"
    "i!  handle: type=cublasHandle_t; val=POINTER (IN HEX:0x0x55d0c3a1e2f0)\n"
    "i!  streamId: type=SOME TYPE; val=POINTER (IN HEX:0x0x0)\n"
    "i! Time: 2026-11-29T07:41:12 elapsed from start 0.000000 minutes or 0.000000 seconds\n"
    "i!Process=31337; Thread=139872345675597; GPU=0; Handle=POINTER (IN HEX:0x0x55d0c3a1e2f0); StreamId=POINTER "
    "(IN HEX:0x0x0) (defaultStream); MathMode=CUBLAS_DEFAULT_MATH\n"
    "i! COMPILED WITH: GNU GCC/G++ / 11.4.0\n"
    "I! cuBLAS (v13.0) function cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t, cublasOperation_t, "
    "int, int, int, const void*, const void*, cudaDataType_t, int, const void*, cudaDataType_t, int, const void*, "
    "void*, cudaDataType_t, int, cublasComputeType_t, cublasGemmAlgo_t) called:\n"
    "i!  handle: type=cublasHandle_t; val=POINTER (IN HEX:0x0x55d0c3a1e2f0)\n"
    "i!  transa: type=cublasOperation_t; val=CUBLAS_OP_T(1)\n"
    "i!  transb: type=cublasOperation_t; val=CUBLAS_OP_N(0)\n"
    "i!  m: type=int; val=1024\n"
    "i!  n: type=int; val=512\n"
    "i!  k: type=int; val=768\n"
    "i!  alpha: type=void; val=POINTER (IN HEX:0x0x7ffd2c1e5b10)\n"
    "i!  A: type=void; val=POINTER (IN HEX:0x0x7f3a40000000)\n"
    "i!  Atype: type=cudaDataType_t; val=CUDA_R_16BF(14)\n"
    "i!  lda: type=int; val=768\n"
    "i!  B: type=void; val=POINTER (IN HEX:0x0x7f3a40400000)\n"
    "i!  Btype: type=cudaDataType_t; val=CUDA_R_16BF(14)\n"
    "i!  ldb: type=int; val=768\n"
    "i!  beta: type=void; val=POINTER (IN HEX:0x0x7ffd2c1e5b18)\n"
    "i!  C: type=void; val=POINTER (IN HEX:0x0x7f3a40800000)\n"
    "i!  Ctype: type=cudaDataType_t; val=CUDA_R_16BF(14)\n"
    "i!  ldc: type=int; val=1024\n"
    "i!  computeType: type=cublasComputeType_t; val=CUBLAS_COMPUTE_32F(68)\n"
    "i!  algo: type=SOME TYPE; val=CUBLAS_GEMM_DEFAULT(-1)\n"
    "i! Time: 2026-11-29T07:41:13 elapsed from start 0.016667 minutes or 1.000000 seconds\n"
    "i!Process=31337; Thread=139872345675597; GPU=0; Handle=POINTER (IN HEX:0x0x55d0c3a1e2f0); StreamId=POINTER "
    "(IN HEX:0x0x0) (defaultStream); MathMode=CUBLAS_DEFAULT_MATH\n"
    "i! COMPILED WITH: GNU GCC/G++ / 11.4.0\n"
    "a line of the application's own output\n"
    "I! cuBLAS (v13.0) function cublasStatus_t cublasSgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, "
    "int, int, int, const float*, const float*, int, const float*, int, const float*, float*, int) called:\n"
    "i!  transa: type=cublasOperation_t; val=CUBLAS_OP_N(0)\n"
    "i!  transb: type=cublasOperation_t; val=CUBLAS_OP_N(0)\n"
    "i!  m: type=int; val=256\n"
    "i!  n: type=int; val=256\n"
    "i!  k: type=int; val=256\n"
    "i! Time: 2026-11-29T07:41:13 elapsed from start 0.016667 minutes or 1.000000 seconds\n"
    "i!Process=31337; Thread=139872345675597; GPU=0; Handle=POINTER (IN HEX:0x0x55d0c3a1e2f0); StreamId=POINTER "
    "(IN HEX:0x0x0) (defaultStream); MathMode=CUBLAS_DEFAULT_MATH\r\n"
    "I! cuBLAS (v13.0) function cublasStatus_t cublasGemmEx(cublasHandle_t, cublasOperation_t) called:\n"
    "i!  m: type=int; val=64\n";

// cuBLASLt 13 (CUBLASLT_LOG_LEVEL=5): set-up calls, an Info and a Hints line, a matmul's Api line and the Trace line
// that repeats it.
const char* const kCublasLtLog =
    "[2026-11-29 07:41:13][cublasLt][31337][Api][cublasLtCreate] lightHandle=0X7FFD2C1E5A48\n"
    "[2026-11-29 07:41:13][cublasLt][31337][Info][cublasLtCreate] cuBLASLt v13.0 device #0: multiProcessorCount=132 "
    "maxSharedMemPerBlock=49152 maxSharedMemoryPerBlockOptin=232448\n"
    "[2026-11-29 07:41:13][cublasLt][31337][Api][cublasLtMatmulDescCreate] matmulDesc=0X7FFD2C1E5B00 "
    "computeType=COMPUTE_32F scaleType=R_32F\n"
    "[2026-11-29 07:41:13][cublasLt][31337][Api][cublasLtMatrixLayoutCreate] matLayout=0X7FFD2C1E5B08 type=R_16BF "
    "rows=768 cols=1024 ld=768\n"
    "[2026-11-29 07:41:13][cublasLt][31337][Hints][cublasLtMatmulAlgoGetHeuristic] requested 1 algo\n"
    "[2026-11-29 07:41:13][cublasLt][31337][Api][cublasLtMatmul] A=0X7F3A40000000 Adesc=[type=R_16BF rows=768 "
    "cols=1024 ld=768] B=0X7F3A40400000 Bdesc=[type=R_16BF rows=768 cols=512 ld=768] C=0X7F3A40800000 "
    "Cdesc=[type=R_16BF rows=1024 cols=512 ld=1024] D=0X7F3A40800000 Ddesc=[type=R_16BF rows=1024 cols=512 ld=1024] "
    "computeDesc=[computeType=COMPUTE_32F scaleType=R_32F transa=OP_T epilogue=EPILOGUE_BIAS "
    "biasPointer=0x7f3a40c00000] algo=[algoId=66 tile=MATMUL_TILE_128x256 stages=MATMUL_STAGES_64x3] "
    "workSpace=0X7F3A41000000 workSpaceSizeInBytes=33554432 beta=1 outOfPlace=0 stream=0X0\n"
    "[2026-11-29 07:41:13][cublasLt][31337][Trace][cublasLtMatmul] A=0X7F3A40000000 Adesc=[type=R_16BF rows=768 "
    "cols=1024 ld=768] Ddesc=[type=R_16BF rows=1024 cols=512 ld=1024] computeDesc=[computeType=COMPUTE_32F "
    "scaleType=R_32F transa=OP_T]\n"
    "cuBLASLt: a banner line\n";

// cuDNN 9 (CUDNN_LOGLEVEL_DBG=3): the handle, a backend descriptor, a plan that failed to finalise (its E! record
// repeats the call) and an execution.
const char* const kCudnnLog =
    "I! CuDNN (v91900 70) function cudnnCreate() called:\n"
    "i!     handle: location=host; addr=0x7ffd2c1e5a50;\n"
    "i! Time: 2026-11-29T07:41:13.402117 (0d+0h+0m+1s since start)\n"
    "i! Process=31337; Thread=31339; GPU=NULL; Handle=NULL; StreamId=NULL.\n"
    "\n"
    "I! CuDNN (v91900 70) function cudnnBackendCreateDescriptor() called:\n"
    "i!     descriptorType: type=cudnnBackendDescriptorType_t; "
    "val=CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR (19);\n"
    "i! Time: 2026-11-29T07:41:13.402530 (0d+0h+0m+1s since start)\n"
    "i! Process=31337; Thread=31339; GPU=NULL; Handle=NULL; StreamId=NULL.\n"
    "\n"
    "I! CuDNN (v91900 70) function cudnnSetTensorNdDescriptor() called:\n"
    "i!     dataType: type=cudnnDataType_t; val=CUDNN_DATA_BFLOAT16 (9);\n"
    "i!     nbDims: type=int; val=4;\n"
    "i!     dimA: type=int; val=[8,64,56,56];\n"
    "i! Time: 2026-11-29T07:41:13.402600 (0d+0h+0m+1s since start)\n"
    "i! Process=31337; Thread=31339; GPU=NULL; Handle=NULL; StreamId=NULL.\n"
    "\n"
    "E! CuDNN (v91900 70) function cudnnBackendFinalize() called:\n"
    "e!         Error: CUDNN_STATUS_NOT_SUPPORTED; Reason: no valid engine configuration\n"
    "e! Time: 2026-11-29T07:41:13.403001 (0d+0h+0m+1s since start)\n"
    "e! Process=31337; Thread=31339; GPU=0; Handle=0x55d0c3b2a000; StreamId=0x0 (defaultStream).\n"
    "\n"
    "I! CuDNN (v91900 70) function cudnnBackendExecute() called:\n"
    "i!     handle: type=cudnnHandle_t; streamId=0x0 (defaultStream);\n"
    "i!     executionPlan: type=cudnnBackendDescriptor_t; val=0x55d0c3b31f40;\n"
    "i!     variantPack: type=cudnnBackendDescriptor_t; val=0x55d0c3b32a80;\n"
    "i! Time: 2026-11-29T07:41:13.410250 (0d+0h+0m+1s since start)\n"
    "i! Process=31337; Thread=31339; GPU=0; Handle=0x55d0c3b2a000; StreamId=0x0 (defaultStream).\n";

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
  const auto calls = rpl::collectors::parse_cublas_log(kCublasLog, "cublas.log");
  ASSERT_EQ(calls.size(), 4u);  // the last record has no Time line: the process stopped while logging it
  EXPECT_EQ(calls[0].library, "cuBLAS");
  EXPECT_EQ(calls[0].function, "cublasCreate_v2");
  EXPECT_FALSE(calls[0].may_launch_work);
  EXPECT_EQ(calls[1].function, "cublasSetStream_v2");
  EXPECT_FALSE(calls[1].may_launch_work);
  EXPECT_EQ(calls[2].function, "cublasGemmEx");
  EXPECT_TRUE(calls[2].may_launch_work);
  EXPECT_EQ(calls[2].arguments,
            "transa=CUBLAS_OP_T transb=CUBLAS_OP_N m=1024 n=512 k=768 Atype=CUDA_R_16BF Btype=CUDA_R_16BF "
            "Ctype=CUDA_R_16BF computeType=CUBLAS_COMPUTE_32F");
  EXPECT_EQ(calls[2].pid, 31337);
  EXPECT_EQ(calls[2].thread, 139872345675597ull);
  EXPECT_EQ(calls[2].time, kEpoch074113 * kSecond);  // read as UTC until to_trace_clock
  EXPECT_EQ(calls[2].resolution, kSecond);
  EXPECT_EQ(calls[2].log_file, "cublas.log");
  EXPECT_EQ(calls[3].function, "cublasSgemm_v2");
  EXPECT_EQ(calls[3].arguments, "transa=CUBLAS_OP_N transb=CUBLAS_OP_N m=256 n=256 k=256");
  EXPECT_TRUE(rpl::collectors::parse_cublas_log("", "cublas.log").empty());
}

TEST(LibraryApiLogs, CublasLtApiLinesAreCallsAndTheTraceLineJoinsItsCall) {
  const auto calls = rpl::collectors::parse_cublaslt_log(kCublasLtLog, "cublaslt_31337.log");
  ASSERT_EQ(calls.size(), 4u);  // Create, DescCreate, LayoutCreate, Matmul: Info and Hints lines add none
  EXPECT_EQ(calls[0].function, "cublasLtCreate");
  EXPECT_FALSE(calls[0].may_launch_work);
  EXPECT_FALSE(calls[1].may_launch_work);
  EXPECT_EQ(calls[2].arguments, "matLayout=0X7FFD2C1E5B08 type=R_16BF rows=768 cols=1024 ld=768");
  const auto& mm = calls[3];
  EXPECT_EQ(mm.library, "cuBLASLt");
  EXPECT_EQ(mm.function, "cublasLtMatmul");
  EXPECT_TRUE(mm.may_launch_work);
  // D is m x n; A is transposed (OP_T), so k is its rows
  EXPECT_EQ(mm.arguments, "m=1024 n=512 k=768 transa=OP_T transb=OP_N Atype=R_16BF Dtype=R_16BF computeType=COMPUTE_32F");
  EXPECT_EQ(mm.pid, 31337);
  EXPECT_EQ(mm.thread, 0u);  // cuBLASLt logs no thread
  EXPECT_EQ(mm.time, kEpoch074113 * kSecond);
  EXPECT_EQ(mm.resolution, kSecond);
  // With level 2 only (Trace lines, no Api lines), each Trace line is a call.
  const auto traced = rpl::collectors::parse_cublaslt_log(
      "[2026-11-29 07:41:13][cublasLt][31337][Trace][cublasLtMatmul] Adesc=[type=R_32F rows=64 cols=32 ld=64] "
      "Ddesc=[type=R_32F rows=64 cols=16 ld=64]\n"
      "[2026-11-29 07:41:13][cublasLt][31337][Trace][cublasLtMatmul] Adesc=[type=R_32F rows=64 cols=32 ld=64]\n",
      "lt.log");
  ASSERT_EQ(traced.size(), 2u);
  EXPECT_EQ(traced[0].arguments, "m=64 n=16 k=32 transa=OP_N transb=OP_N Atype=R_32F Dtype=R_32F");
  // Older cuBLASLt lines carry no time ([library][pid][category][function]); a GEMM that cuBLAS runs through
  // cuBLASLt is logged at the Trace level under a typed name (cublasLtSSSMatmul, cublasLtTSTMatmul).
  const auto untimed = rpl::collectors::parse_cublaslt_log(
      "[cublasLt][3794797][Trace][cublasLtSSSMatmul] A=0X400380DD0A00 Adesc=[type=R_32F rows=1000 cols=1000 ld=1000] "
      "Ddesc=[type=R_32F rows=1000 cols=1000 ld=1000] computeDesc=[computeType=COMPUTE_32F_FAST_TF32 scaleType=R_32F "
      "smCountTarget=108] algo=[algoId=21 tile=MATMUL_TILE_128x128]\n"
      "[cublasLt][3794797][Error][cublasLtMatmulAlgoGetHeuristic] Failed to query heuristics.\n",
      "lt.log");
  ASSERT_EQ(untimed.size(), 1u);
  EXPECT_EQ(untimed[0].function, "cublasLtSSSMatmul");
  EXPECT_EQ(untimed[0].pid, 3794797);
  EXPECT_EQ(untimed[0].resolution, 0);  // no time
  EXPECT_EQ(untimed[0].arguments,
            "m=1000 n=1000 k=1000 transa=OP_N transb=OP_N Atype=R_32F Dtype=R_32F computeType=COMPUTE_32F_FAST_TF32");
}

TEST(LibraryApiLogs, CudnnInfoRecordsAreCallsOtherSeveritiesAreSkipped) {
  const auto calls = rpl::collectors::parse_cudnn_log(kCudnnLog, "cudnn.log");
  ASSERT_EQ(calls.size(), 4u);  // the E! record repeats a call and is not one
  EXPECT_EQ(calls[0].function, "cudnnCreate");
  EXPECT_EQ(calls[1].function, "cudnnBackendCreateDescriptor");
  EXPECT_FALSE(calls[1].may_launch_work);
  EXPECT_EQ(calls[2].function, "cudnnSetTensorNdDescriptor");
  EXPECT_EQ(calls[2].arguments, "dataType=CUDNN_DATA_BFLOAT16 dimA=[8,64,56,56]");
  const auto& ex = calls[3];
  EXPECT_EQ(ex.library, "cuDNN");
  EXPECT_EQ(ex.function, "cudnnBackendExecute");
  EXPECT_TRUE(ex.may_launch_work);
  EXPECT_EQ(ex.pid, 31337);
  EXPECT_EQ(ex.thread, 31339u);
  EXPECT_EQ(ex.time, kEpoch074113 * kSecond + 410'250'000);
  EXPECT_EQ(ex.resolution, 1000);  // microseconds
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
  std::ofstream(dir.file("cublas.log")) << kCublasLog;
  std::ofstream(dir.file("cublaslt_31337.log")) << kCublasLtLog;
  std::ofstream(dir.file("cudnn.log")) << kCudnnLog;
  try {
    rpl::collectors::read_library_api_logs(dir.path().string());
    ADD_FAILURE() << "logs without clock.txt were read";
  } catch (const rpl::Error& e) {
    EXPECT_NE(std::string(e.what()).find("clock.txt"), std::string::npos) << e.what();
  }
  // The run started at 08:41:10 local time (UTC+1) = 07:41:10 UTC, 500 s after boot on the trace's clock.
  const rpl::collectors::LibraryLogClock clock{(kEpoch074113 - 3) * kSecond, 500 * kSecond, 3600};
  rpl::collectors::write_library_log_clock(dir.path().string(), clock);
  EXPECT_EQ(read_file(dir.file("clock.txt")), "realtime_ns=1795938070000000000\ntrace_clock_ns=500000000000\nutc_offset_s=3600\n");
  const auto calls = rpl::collectors::read_library_api_logs(dir.path().string());
  ASSERT_EQ(calls.size(), 12u);  // 4 cuBLAS, 4 cuBLASLt, 4 cuDNN
  // the logs' 07:41:13 read as local time is 06:41:13 UTC: an hour before the run started
  EXPECT_EQ(calls[2].function, "cublasGemmEx");
  EXPECT_EQ(calls[2].time, 500 * kSecond + 3 * kSecond - 3600 * kSecond);
  EXPECT_EQ(calls[11].function, "cudnnBackendExecute");
  EXPECT_EQ(calls[11].time, 500 * kSecond + 3 * kSecond - 3600 * kSecond + 410'250'000);
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
  int64_t correlation = 0;
  Fixture() {
    t.add_process(31337);
    t.add_agent("sm_90");
    gemm = t.add_symbol(kGemm);
    conv = t.add_symbol(kConv);
    fill = t.add_symbol(kFill);
  }
  // cudaLaunchKernel at `host` on `thread`; the kernel runs 10 us later for 20 us.
  void launch(rpl::Index symbol, rpl::TimeNs host, uint32_t thread = kThread) {
    rpl::ApiCall a;
    a.start = host;
    a.end = host + 2'000;
    a.correlation_id = ++correlation;
    a.process = 0;
    a.thread = thread;
    a.name = t.trace.strings.intern("cudaLaunchKernel");
    a.category = t.trace.strings.intern("CUDA_RUNTIME_API");
    t.trace.api_calls.push_back(a);
    t.add_dispatch(symbol, host + 10'000, host + 30'000)->correlation_id = correlation;
  }
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
  EXPECT_NE(csv.find("\"cuDNN\",\"cudnnBackendExecute\",31337,31339,100001000000,100001052000,52000,1,0,20000,\"\","
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
