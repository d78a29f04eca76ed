// Library call traces (issue 33): the marker ranges hipBLASLt / MIOpen (ROCTx) and cuBLAS / cuDNN (NVTX) put
// around their API calls, found by the API's name, with the GPU work launched inside them; library_trace.csv
// (through export csv) and library_calls.json (schema). The databases are written through our rocpd writer,
// which creates AMD's rocpd tables (the columns tests/amd_rocpd checks against AMD's own SQL).
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "analysis/library_calls.hpp"
#include "collectors/amd/rocblas_profile_log.hpp"
#include "report/library_trace.hpp"
#include "report/rocprof_csv.hpp"
#include "store/rocpd_reader.hpp"
#include "support/errors.hpp"
#include "store/rocpd_writer.hpp"
#include "testing/cli.hpp"
#include "testing/schema_check.hpp"
#include "testing/tmpdir.hpp"

using rpl::test::read_file;
using rpl::test::TempDir;

namespace {

using rpl::analysis::library_function;

// One process: kernel "gemm" launched twice inside hipblasLtMatmul ranges, kernel "conv" inside a MIOpen range
// on another thread, a user range "step" around everything (not a library call) and a launch outside any range.
// A database of one process (pid 4242) with one GPU (agent 1, queue 1, the default stream).
std::unique_ptr<rpl::rocpd::Writer> one_gpu_writer(const std::string& path, const char* gpu_name, const char* product,
                                                   const char* vendor) {
  rpl::rocpd::NodeRow node;
  node.hostname = "node01";
  rpl::rocpd::ProcessRow proc;
  proc.pid = 4242;
  proc.command = "app";
  auto w = std::make_unique<rpl::rocpd::Writer>(path, node, proc);
  rpl::rocpd::AgentRow gpu;
  gpu.id = 1;
  gpu.name = gpu_name;
  gpu.product_name = product;
  gpu.vendor_name = vendor;
  w->add_agent(gpu);
  w->add_queue(1, "Queue 0");
  w->add_stream(0, "Default Stream");
  return w;
}

std::string write_trace(const TempDir& dir) {
  const std::string path = dir.file("lib_results.db");
  auto writer = one_gpu_writer(path, "gfx942", "AMD Instinct MI300X", "AMD");
  rpl::rocpd::Writer& w = *writer;
  for (int k = 1; k <= 2; ++k) {
    rpl::rocpd::KernelSymbolRow s;
    s.id = k;
    s.kernel_name = k == 1 ? "_Z4gemmv" : "_Z4convv";
    s.display_name = k == 1 ? "gemm" : "conv";
    w.add_kernel_symbol(s);
  }
  auto dispatch = [&](int64_t id, int64_t kernel, int64_t tid, rpl::TimeNs start, rpl::TimeNs end) {
    rpl::rocpd::DispatchRow d;
    d.dispatch_id = id;
    d.correlation_id = id;
    d.tid = tid;
    d.agent_id = 1;
    d.kernel_id = kernel;
    d.queue_id = 1;
    d.start = start;
    d.end = end;
    w.add_dispatch(d);
    w.add_region({tid, start - 3000, start - 2000, "hipLaunchKernel", "HIP_RUNTIME_API_EXT", id, {}});
  };
  const rpl::TimeNs t0 = 1'000'000'000;
  w.add_region({7, t0, t0 + 1'000'000, "step", "MARKER_CORE_API", 0, {}});
  w.add_region({7, t0 + 10'000, t0 + 20'000, "hipblasLtMatmul", "MARKER_CORE_API", 0, {}});
  dispatch(1, 1, 7, t0 + 15'000, t0 + 25'000);  // launched at t0 + 12'000
  w.add_region({7, t0 + 100'000, t0 + 130'000, "hipblasLtMatmul", "MARKER_CORE_API", 0, {}});
  dispatch(2, 1, 7, t0 + 105'000, t0 + 140'000);
  w.add_region({8, t0 + 200'000, t0 + 205'000, "miopenConvolutionForward", "MARKER_CORE_API", 0, {}});
  dispatch(3, 2, 8, t0 + 205'000, t0 + 215'000);  // launched at t0 + 202'000
  dispatch(4, 2, 7, t0 + 500'000, t0 + 510'000);  // inside "step" only
  w.finish();
  return path;
}

// The kernels of the H200 run of bench/cuda/library_trace_gpu.sh (bench/results/2026-11-29/cuda/library_trace_gpu/):
// 5 cuBLAS GEMMs, 4 cuDNN convolutions, 2 ATen kernels, one launch each. `ranges[k]`, when not empty, is the
// marker range put around every launch of kernel k (the library's call); the run itself had none.
const char* const kH200Gemm =
    "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel__5x_cublas";
const char* const kH200Conv =
    "sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize128x32x8_stage3_warpsize2x2x1_g1_ffma_aligna4_"
    "alignc4_execute_kernel__5x_cudnn";

std::string write_library_kernels(const TempDir& dir, const std::string& name, std::array<const char*, 3> ranges) {
  const std::string path = dir.file(name);
  auto writer = one_gpu_writer(path, "sm_90", "NVIDIA H200", "NVIDIA");
  rpl::rocpd::Writer& w = *writer;
  const std::array<std::pair<const char*, int>, 3> kernels = {
      std::pair{kH200Gemm, 5}, std::pair{kH200Conv, 4},
      std::pair{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >", 2}};
  int64_t id = 0;
  for (int k = 0; k < 3; ++k) {
    rpl::rocpd::KernelSymbolRow s;
    s.id = k + 1;
    s.kernel_name = s.display_name = kernels[k].first;
    w.add_kernel_symbol(s);
    for (int n = 0; n < kernels[k].second; ++n) {
      const rpl::TimeNs t = 1'000'000'000 + 100'000 * ++id;
      if (ranges[k][0]) w.add_region({7, t - 5'000, t + 1'000, ranges[k], "MARKER_CORE_API", 0, {}});
      w.add_region({7, t - 3'000, t - 2'000, "cudaLaunchKernel", "CUDA_RUNTIME_API", id, {}});
      rpl::rocpd::DispatchRow d;
      d.dispatch_id = d.correlation_id = id;
      d.tid = 7;
      d.agent_id = d.queue_id = 1;
      d.kernel_id = k + 1;
      d.start = t;
      d.end = t + 20'000;
      w.add_dispatch(d);
    }
  }
  w.finish();
  return path;
}

}  // namespace

TEST(LibraryCalls, RangeNamesGiveTheLibraryAndFunction) {
  struct Case {
    const char* name;
    const char* library;
    const char* function;
  };
  for (const Case& c : {Case{"hipblasLtMatmul", "hipBLASLt", "hipblasLtMatmul"},
                        Case{"hipblasSgemm", "hipBLAS", "hipblasSgemm"},
                        Case{"rocblas_sgemm", "rocBLAS", "rocblas_sgemm"},
                        Case{"miopenConvolutionForward(handle, ...)", "MIOpen", "miopenConvolutionForward"},
                        Case{"cublasLtMatmul", "cuBLASLt", "cublasLtMatmul"},
                        Case{"cublasSgemm_v2", "cuBLAS", "cublasSgemm_v2"},
                        Case{"[cuDNN] cudnnConvolutionForward", "cuDNN", "cudnnConvolutionForward"}}) {
    auto f = library_function(c.name);
    ASSERT_TRUE(f) << c.name;
    EXPECT_EQ(f->library, c.library) << c.name;
    EXPECT_EQ(f->function, c.function) << c.name;
  }
  // a user's own range, a bare prefix, a prefix inside another word: no library call
  for (const char* name : {"forward pass", "cudnn", "my_cublasGemm", "step 3", ""})
    EXPECT_FALSE(library_function(name)) << name;
}

TEST(LibraryCalls, FoundInARocpdTraceWithTheWorkLaunchedInside) {
  TempDir dir;
  const rpl::Trace trace = rpl::rocpd::read_databases({write_trace(dir)});
  const auto calls = rpl::analysis::library_calls(trace);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].call.function, "hipblasLtMatmul");
  EXPECT_EQ(calls[0].gpu_kernels, 1u);
  EXPECT_EQ(calls[0].gpu_busy_ns, 10'000);
  EXPECT_EQ(calls[1].gpu_busy_ns, 35'000);
  EXPECT_EQ(calls[2].call.library, "MIOpen");
  EXPECT_EQ(calls[2].gpu_kernels, 1u);
  EXPECT_EQ(calls[2].end - calls[2].start, 5'000);

  const auto summary = rpl::analysis::library_summary(calls);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].call.library, "hipBLASLt");  // 40 us of host time before MIOpen's 5 us
  EXPECT_EQ(summary[0].calls, 2u);
  EXPECT_EQ(summary[0].total_ns, 40'000);
  EXPECT_EQ(summary[0].gpu_kernels, 2u);
  EXPECT_EQ(summary[0].gpu_busy_ns, 45'000);
}

TEST(LibraryCalls, ExportCsvWritesLibraryTraceAndTheJsonFollowsItsSchema) {
  TempDir dir;
  const std::string db = write_trace(dir);
  auto r = rpl::test::run_cli({"export", "csv", db, "-o", dir.file("csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = read_file(dir.file("csv/library_trace.csv"));
  EXPECT_EQ(csv, std::string(rpl::report::kLibraryTraceHeader) + "\n" +
                     "\"hipBLASLt\",\"hipblasLtMatmul\",4242,7,1000010000,1000020000,10000,1,0,10000,\"hipblasLtMatmul\","
                     "\"marker_range\",\"\"\n"
                     "\"hipBLASLt\",\"hipblasLtMatmul\",4242,7,1000100000,1000130000,30000,1,0,35000,\"hipblasLtMatmul\","
                     "\"marker_range\",\"\"\n"
                     "\"MIOpen\",\"miopenConvolutionForward\",4242,8,1000200000,1000205000,5000,1,0,10000,"
                     "\"miopenConvolutionForward\",\"marker_range\",\"\"\n");
  // the markers stay in marker_api_trace.csv too, as rocprofv3 writes them
  EXPECT_NE(read_file(dir.file("csv/marker_api_trace.csv")).find("\"step\""), std::string::npos);

  const rpl::Trace trace = rpl::rocpd::read_databases({db});
  ASSERT_EQ(rpl::report::write_library_outputs(dir.path().string(), trace, "ROCTx markers").calls, 3u);
  EXPECT_EQ(rpl::test::validate_against_schema("library-calls", dir.file("library_calls.json")), "");
  const auto doc = nlohmann::json::parse(read_file(dir.file("library_calls.json")));
  EXPECT_EQ(doc["calls"], 3);
  EXPECT_EQ(doc["functions"][0]["function"], "hipblasLtMatmul");
  EXPECT_EQ(doc["functions"][0]["mean_ns"], 20000.0);
}

TEST(LibraryCalls, ATraceWithoutLibraryMarkersWritesNoLibraryTrace) {
  TempDir dir;
  rpl::rocpd::NodeRow node;
  node.hostname = "n";
  rpl::rocpd::ProcessRow proc;
  proc.pid = 1;
  {
    rpl::rocpd::Writer w(dir.file("plain_results.db"), node, proc);
    rpl::rocpd::AgentRow gpu;
    gpu.id = 1;
    gpu.name = "gfx90a";
    w.add_agent(gpu);
    w.add_queue(1, "Queue 0");
    w.add_stream(0, "Default Stream");
    rpl::rocpd::KernelSymbolRow s;
    s.id = 1;
    s.kernel_name = s.display_name = "k";
    w.add_kernel_symbol(s);
    rpl::rocpd::DispatchRow d;
    d.dispatch_id = d.correlation_id = d.kernel_id = 1;
    d.agent_id = d.queue_id = 1;
    d.start = 100;
    d.end = 200;
    w.add_dispatch(d);
    w.add_region({1, 50, 300, "training step", "MARKER_CORE_API", 0, {}});
    w.finish();
  }
  auto r = rpl::test::run_cli({"export", "csv", dir.file("plain_results.db"), "-o", dir.file("csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.file("csv/kernel_trace.csv")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("csv/library_trace.csv")));
}

// cuBLAS and cuDNN emitted no NVTX range on the H200 (PyTorch 2.11, CUDA 13): their kernels ran, no call was found,
// and library_calls.json says which libraries ran unmarked instead of only "0 calls".
TEST(LibraryCalls, KernelsOfLibrariesThatMarkedNoCallAreNamed) {
  TempDir dir;
  const rpl::Trace trace = rpl::rocpd::read_databases({write_library_kernels(dir, "h200_results.db", {"", "", ""})});
  const auto calls = rpl::analysis::library_calls(trace);
  EXPECT_TRUE(calls.empty());
  const auto without = rpl::analysis::library_kernels_without_calls(trace, calls);
  ASSERT_EQ(without.size(), 2u);  // ATen's kernels are no marked library's
  EXPECT_EQ(without[0].library, "cuBLAS");
  EXPECT_EQ(without[0].dispatches, 5u);
  EXPECT_EQ(without[0].kernels, 1u);
  EXPECT_EQ(without[0].example, kH200Gemm);
  EXPECT_EQ(without[1].library, "cuDNN");
  EXPECT_EQ(without[1].dispatches, 4u);
  EXPECT_EQ(without[1].example, kH200Conv);

  const auto written = rpl::report::write_library_outputs(dir.path().string(), trace, "NVTX ranges (CUPTI)");
  EXPECT_EQ(written.calls, 0u);
  EXPECT_EQ(written.kernels_without_calls.size(), 2u);
  EXPECT_EQ(rpl::test::validate_against_schema("library-calls", dir.file("library_calls.json")), "");
  const auto doc = nlohmann::json::parse(read_file(dir.file("library_calls.json")));
  ASSERT_EQ(doc["kernels_without_calls"].size(), 2u);
  EXPECT_EQ(doc["kernels_without_calls"][1]["library"], "cuDNN");
  EXPECT_EQ(doc["kernels_without_calls"][1]["dispatches"], 4);
}

TEST(LibraryCalls, KernelsOfLibrariesWhoseCallsWereFoundAreNotListed) {
  TempDir dir;
  // cuBLASLt's calls launch cuBLAS's kernels; cuDNN's calls its own
  const rpl::Trace both = rpl::rocpd::read_databases(
      {write_library_kernels(dir, "marked_results.db", {"cublasLtMatmul", "cudnnConvolutionForward", ""})});
  const auto calls = rpl::analysis::library_calls(both);
  EXPECT_EQ(calls.size(), 9u);
  EXPECT_TRUE(rpl::analysis::library_kernels_without_calls(both, calls).empty());
  rpl::report::write_library_outputs(dir.path().string(), both, "NVTX ranges (CUPTI)");
  EXPECT_FALSE(nlohmann::json::parse(read_file(dir.file("library_calls.json"))).contains("kernels_without_calls"));
  // only cuBLAS marked: cuDNN's kernels are still named
  const rpl::Trace one = rpl::rocpd::read_databases(
      {write_library_kernels(dir, "cublas_results.db", {"cublasSgemm_v2", "", ""})});
  const auto unmarked = rpl::analysis::library_kernels_without_calls(one, rpl::analysis::library_calls(one));
  ASSERT_EQ(unmarked.size(), 1u);
  EXPECT_EQ(unmarked[0].library, "cuDNN");
  // no library kernel at all (write_trace's "gemm" and "conv" are the user's own): nothing to say
  const rpl::Trace user = rpl::rocpd::read_databases({write_trace(dir)});
  EXPECT_TRUE(rpl::analysis::library_kernels_without_calls(user, {}).empty());
}

// rocBLAS puts no ROCTx range around its calls; its profile log (ROCBLAS_LAYER=4) counts them. The line format
// is rocBLAS's documented one (logging.rst): "- { rocblas_function: "...", <arguments>, call_count: N }".
TEST(RocblasProfileLog, EachLineIsAFunctionItsArgumentsAndItsCount) {
  const std::string log =
      "# rocBLAS profile\n"
      "- { rocblas_function: \"rocblas_gemm_ex\", atomics_mode: atomics_allowed, a_type: \"bf16_r\", transA: 'T', "
      "transB: 'N', M: 12288, N: 4547, K: 4608, alpha: 1.0, beta: 0.0, call_count: 40 }\n"
      "\n"
      "- { rocblas_function: \"rocblas_sscal\", N: 1024, alpha: 2.0, incx: 1, call_count: 3 }\r\n";
  const auto calls = rpl::collectors::parse_rocblas_profile_log(log, "p.log");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].library, "rocBLAS");
  EXPECT_EQ(calls[0].function, "rocblas_gemm_ex");
  EXPECT_EQ(calls[0].calls, 40);
  EXPECT_EQ(calls[0].arguments,
            "atomics_mode: atomics_allowed, a_type: \"bf16_r\", transA: 'T', transB: 'N', M: 12288, N: 4547, K: 4608, "
            "alpha: 1.0, beta: 0.0");
  EXPECT_EQ(calls[1].function, "rocblas_sscal");
  EXPECT_EQ(calls[1].arguments, "N: 1024, alpha: 2.0, incx: 1");
  EXPECT_EQ(calls[1].calls, 3);
  EXPECT_TRUE(rpl::collectors::parse_rocblas_profile_log("", "p.log").empty());
  EXPECT_TRUE(rpl::collectors::read_rocblas_profile_log("/nonexistent/rocblas_profile.log").empty());
}

TEST(RocblasProfileLog, ALineWithoutACountNamesTheFileAndLine) {
  for (const char* bad : {"- { rocblas_function: \"rocblas_sgemm\", M: 1 }\n",
                          "- { rocblas_function: \"rocblas_sgemm\", call_count: many }\n",
                          "- { rocblas_function: \"rocblas_sgemm\", call_count: -2 }\n",
                          "- rocblas_function: \"rocblas_sgemm\", call_count: 1\n"}) {
    try {
      rpl::collectors::parse_rocblas_profile_log(std::string("# header\n") + bad, "dir/p.log");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const rpl::Error& e) {
      EXPECT_EQ(e.code(), rpl::ExitCode::InputCorrupt);
      EXPECT_NE(std::string(e.what()).find("dir/p.log:2:"), std::string::npos) << e.what();
    }
  }
}

TEST(RocblasProfileLog, CountedCallsJoinLibraryCallsJsonWithoutTimes) {
  const std::vector<rpl::LibraryCallCount> counted = {{"rocBLAS", "rocblas_sgemm", "M: 1", 7}};
  const auto doc = rpl::report::library_calls_document({}, "test", counted);
  EXPECT_EQ(doc["schema_version"], "1.3");
  EXPECT_EQ(doc["calls"], 0);  // the timed calls only
  ASSERT_EQ(doc["counted_calls"].size(), 1u);
  EXPECT_EQ(doc["counted_calls"][0]["calls"], 7);
  EXPECT_EQ(rpl::test::SchemaSet(std::string(RPL_SOURCE_DIR) + "/schemas").validate("library-calls", doc), "");
  EXPECT_FALSE(rpl::report::library_calls_document({}, "test").contains("counted_calls"));
}
