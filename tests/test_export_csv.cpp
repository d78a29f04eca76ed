// `rocm-perf export csv`: rocprofv3's CSV files (kernel_trace.csv, memory_copy_trace.csv, *_api_trace.csv).
// Headers are compared with rocprofv3's own (ROCm 7.x rocprofv3, --output-format csv; copied here as
// rocprofv3 writes them, not from our code), values with the rows the fixture wrote and with the example
// traces' tables read by SQLite.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "model/trace.hpp"
#include "report/rocprof_csv.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_writer.hpp"
#include "support/csv.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/fixtures.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"
#include "testing/visual_sample.hpp"

namespace fs = std::filesystem;
using rpl::test::TempDir;

namespace {

// rocprofv3 (rocprofiler-sdk, ROCm 7.x) header lines, as it writes them.
const std::string kRocprofKernelHeader =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\","
    "\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
    "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\","
    "\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"";
const std::string kRocprofCopyHeader =
    "\"Kind\",\"Direction\",\"Stream_Id\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\","
    "\"Start_Timestamp\",\"End_Timestamp\"";
const std::string kRocprofApiHeader =
    "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"";

// One value from a copy of `db` (the committed example is never opened for writing).
std::string sql_scalar(const std::string& db, const std::string& sql) {
  TempDir dir;
  fs::copy_file(db, dir.file("copy.db"));
  rpl::test::SqlFile file(dir.file("copy.db"));
  return file.rows(sql).at(0).at(0);
}

std::vector<std::string> lines(const std::string& path) {
  std::vector<std::string> out;
  std::string text = rpl::test::read_file(path), line;
  for (char c : text) {
    if (c == '\n') {
      out.push_back(line);
      line.clear();
    } else {
      line.push_back(c);
    }
  }
  EXPECT_TRUE(line.empty()) << path << " does not end with a newline";
  return out;
}

// Rows as maps from column name to value (quotes removed).
std::vector<std::map<std::string, std::string>> rows(const std::string& path) {
  std::vector<std::vector<std::string>> table = rpl::split_csv(rpl::test::read_file(path));
  std::vector<std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < table.size(); ++r) {
    EXPECT_EQ(table[r].size(), table[0].size()) << path << " row " << r;
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < table[0].size() && c < table[r].size(); ++c) row[table[0][c]] = table[r][c];
    out.push_back(row);
  }
  return out;
}

std::vector<std::string> export_csv(const std::vector<std::string>& dbs, const std::string& out_dir,
                                    const rpl::report::RocprofCsvOptions& base = {}) {
  rpl::Trace trace = rpl::rocpd::read_databases(dbs);
  rpl::report::RocprofCsvOptions options = base;
  options.output_dir = out_dir;
  return rpl::report::write_rocprof_csv(trace, options);
}

std::string names_of(const std::vector<std::string>& paths) {
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(fs::path(p).filename().string());
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& n : names) joined += n + " ";
  return joined;
}

}  // namespace

TEST(ExportCsv, HeadersAreRocprofv3s) {
  EXPECT_EQ(rpl::report::kKernelTraceHeader, kRocprofKernelHeader);
  EXPECT_EQ(rpl::report::kMemoryCopyTraceHeader, kRocprofCopyHeader);
  EXPECT_EQ(rpl::report::kApiTraceHeader, kRocprofApiHeader);
}

TEST(ExportCsv, HipFixtureGivesRocprofv3sFilesAndValues) {
  TempDir dir;
  rpl::test::FixtureSpec spec;
  rpl::test::FixtureRows fixture = rpl::test::fixture_rows(spec);
  std::string db = dir.file(spec.file_name);
  rpl::test::write_fixture(fixture, db);
  std::string out = dir.file("csv");
  auto written = export_csv({db}, out);
  EXPECT_EQ(names_of(written), "counter_collection.csv hip_api_trace.csv kernel_trace.csv memory_copy_trace.csv ");

  EXPECT_EQ(lines(out + "/kernel_trace.csv").at(0), kRocprofKernelHeader);
  EXPECT_EQ(lines(out + "/memory_copy_trace.csv").at(0), kRocprofCopyHeader);
  EXPECT_EQ(lines(out + "/hip_api_trace.csv").at(0), kRocprofApiHeader);

  // Every dispatch once, in start order, each value from the row the fixture wrote.
  auto kernels = rows(out + "/kernel_trace.csv");
  ASSERT_EQ(kernels.size(), fixture.dispatches.size());
  std::map<std::string, const rpl::rocpd::DispatchRow*> by_id;
  for (const auto& d : fixture.dispatches) by_id[std::to_string(d.dispatch_id)] = &d;
  std::map<int64_t, const rpl::rocpd::KernelSymbolRow*> symbols;
  for (const auto& s : fixture.symbols) symbols[s.id] = &s;
  std::map<int64_t, const rpl::rocpd::AgentRow*> agents;
  for (const auto& a : fixture.agents) agents[a.id] = &a;
  int64_t last_start = 0;
  for (const auto& k : kernels) {
    ASSERT_TRUE(by_id.count(k.at("Dispatch_Id"))) << k.at("Dispatch_Id");
    const auto& d = *by_id[k.at("Dispatch_Id")];
    const auto& s = *symbols.at(d.kernel_id);
    EXPECT_EQ(k.at("Kind"), "KERNEL_DISPATCH");
    EXPECT_EQ(k.at("Agent_Id"), "Agent " + std::to_string(agents.at(d.agent_id)->logical_index));
    EXPECT_EQ(k.at("Queue_Id"), std::to_string(d.queue_id));
    EXPECT_EQ(k.at("Stream_Id"), std::to_string(d.stream_id));
    EXPECT_EQ(k.at("Thread_Id"), std::to_string(d.tid));
    EXPECT_EQ(k.at("Kernel_Id"), std::to_string(d.kernel_id));
    EXPECT_EQ(k.at("Correlation_Id"), std::to_string(d.correlation_id));
    EXPECT_EQ(k.at("Start_Timestamp"), std::to_string(d.start));
    EXPECT_EQ(k.at("End_Timestamp"), std::to_string(d.end));
    EXPECT_EQ(k.at("LDS_Block_Size"), std::to_string((s.group_segment_size + 511) / 512 * 512));
    EXPECT_EQ(k.at("Scratch_Size"), std::to_string(d.private_segment_size));
    EXPECT_EQ(k.at("VGPR_Count"), std::to_string(s.arch_vgpr_count));
    EXPECT_EQ(k.at("Accum_VGPR_Count"), std::to_string(s.accum_vgpr_count));
    EXPECT_EQ(k.at("SGPR_Count"), std::to_string(s.sgpr_count));
    EXPECT_EQ(k.at("Workgroup_Size_X"), std::to_string(d.workgroup[0]));
    EXPECT_EQ(k.at("Grid_Size_X"), std::to_string(d.grid[0]));
    EXPECT_EQ(k.at("Grid_Size_Z"), std::to_string(d.grid[2]));
    int64_t start = std::stoll(k.at("Start_Timestamp"));
    EXPECT_GE(start, last_start);
    last_start = start;
  }
  // The symbol without a display name is shown demangled, as rocprofv3's default kernel names.
  bool consume = false;
  for (const auto& k : kernels) consume |= k.at("Kernel_Name") == "consume(float*)";
  EXPECT_TRUE(consume);

  auto copies = rows(out + "/memory_copy_trace.csv");
  ASSERT_EQ(copies.size(), fixture.copies.size());
  EXPECT_EQ(copies[0].at("Kind"), "MEMORY_COPY");
  EXPECT_EQ(copies[0].at("Direction"), fixture.copies[0].kind);
  EXPECT_EQ(copies[0].at("Source_Agent_Id"), "Agent " + std::to_string(agents.at(fixture.copies[0].src_agent_id)->logical_index));
  EXPECT_EQ(copies[0].at("Destination_Agent_Id"), "Agent " + std::to_string(agents.at(fixture.copies[0].dst_agent_id)->logical_index));
  EXPECT_EQ(copies[0].at("Correlation_Id"), std::to_string(fixture.copies[0].correlation_id));
  EXPECT_EQ(copies[0].at("Start_Timestamp"), std::to_string(fixture.copies[0].start));

  auto api = rows(out + "/hip_api_trace.csv");
  ASSERT_EQ(api.size(), fixture.regions.size());
  EXPECT_EQ(api[0].at("Domain"), fixture.regions[0].category);
  EXPECT_EQ(api[0].at("Function"), fixture.regions[0].name);
  EXPECT_EQ(api[0].at("Process_Id"), std::to_string(fixture.process.pid));
  EXPECT_EQ(api[0].at("Thread_Id"), std::to_string(fixture.regions[0].tid));
  EXPECT_EQ(api[0].at("Correlation_Id"), std::to_string(fixture.regions[0].correlation_id));
}

TEST(ExportCsv, StringsQuotedNumbersBare) {
  TempDir dir;
  std::string db = rpl::test::make_fixture_db(dir.path());
  std::string out = dir.file("csv");
  export_csv({db}, out);
  std::string first = lines(out + "/kernel_trace.csv").at(1);
  // "KERNEL_DISPATCH","Agent N",<queue>,...: the kind and agent quoted, the ids bare.
  EXPECT_EQ(first.rfind("\"KERNEL_DISPATCH\",\"Agent ", 0), 0u) << first;
  EXPECT_NE(first.find("\",1,1,"), std::string::npos) << first;  // queue 1, stream 1 after the agent
}

TEST(ExportCsv, AbsoluteAgentIndex) {
  TempDir dir;
  rpl::test::FixtureRows fixture = rpl::test::fixture_rows();
  std::string db = dir.file("f.db");
  rpl::test::write_fixture(fixture, db);
  rpl::report::RocprofCsvOptions options;
  options.agent_index = rpl::report::AgentIndex::Absolute;
  export_csv({db}, dir.file("csv"), options);
  const rpl::rocpd::AgentRow* gpu = nullptr;
  for (const auto& a : fixture.agents)
    if (a.is_gpu) gpu = &a;
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(gpu->absolute_index, gpu->logical_index) << "the fixture should tell the two apart";
  EXPECT_EQ(rows(dir.file("csv") + "/kernel_trace.csv").at(0).at("Agent_Id"),
            "Agent " + std::to_string(gpu->absolute_index));
}

TEST(ExportCsv, CudaTraceGivesCudaApiTraceAndFillsApart) {
  TempDir dir;
  const std::string db = std::string(RPL_SOURCE_DIR) + "/examples/traces/multistream-h100.db";
  auto written = export_csv({db}, dir.file("csv"));
  EXPECT_EQ(names_of(written), "cuda_api_trace.csv kernel_trace.csv memory_copy_trace.csv memory_fill_trace.csv ");
  // Row counts equal the database's tables.
  auto count = [&](const std::string& sql) { return std::stoul(sql_scalar(db, sql)); };
  EXPECT_EQ(rows(dir.file("csv/kernel_trace.csv")).size(), count("SELECT COUNT(*) FROM rocpd_kernel_dispatch"));
  EXPECT_EQ(rows(dir.file("csv/cuda_api_trace.csv")).size(), count("SELECT COUNT(*) FROM rocpd_region"));
  EXPECT_EQ(rows(dir.file("csv/memory_copy_trace.csv")).size() + rows(dir.file("csv/memory_fill_trace.csv")).size(),
            count("SELECT COUNT(*) FROM rocpd_memory_copy"));
  for (const auto& r : rows(dir.file("csv/memory_copy_trace.csv")))
    EXPECT_EQ(r.at("Direction").rfind("MEMORY_COPY_", 0), 0u) << r.at("Direction");
  for (const auto& r : rows(dir.file("csv/cuda_api_trace.csv")))
    EXPECT_EQ(r.at("Domain").rfind("CUDA_", 0), 0u) << r.at("Domain");
  // Dispatch 1 exactly as the database has it.
  auto k = rows(dir.file("csv/kernel_trace.csv")).at(0);
  EXPECT_EQ(k.at("Start_Timestamp"), sql_scalar(db, "SELECT MIN(start) FROM rocpd_kernel_dispatch"));
}

TEST(ExportCsv, SeveralProcessesGetPidPrefixes) {
  TempDir dir;
  rpl::test::FixtureSpec a, b;
  a.file_name = "a.db";
  b.file_name = "b.db";
  b.pid = 5151;
  b.guid = "0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5c";
  std::string da = rpl::test::make_fixture_db(dir.path(), a), dbb = rpl::test::make_fixture_db(dir.path(), b);
  rpl::report::RocprofCsvOptions options;
  options.prefix = "run";
  auto written = export_csv({da, dbb}, dir.file("csv"), options);
  EXPECT_TRUE(fs::exists(dir.file("csv/run_4242_kernel_trace.csv")));
  EXPECT_TRUE(fs::exists(dir.file("csv/run_5151_kernel_trace.csv")));
  EXPECT_TRUE(fs::exists(dir.file("csv/run_5151_hip_api_trace.csv")));
  for (const auto& r : rows(dir.file("csv/run_5151_hip_api_trace.csv"))) EXPECT_EQ(r.at("Process_Id"), "5151");
}

TEST(ExportCsv, QuotesInNamesAreDoubled) {
  rpl::Trace t;
  t.processes.push_back({});
  rpl::KernelSymbol s;
  s.process = 0;
  s.display_name = t.strings.intern("k<\"x\", 2>");
  t.symbols.push_back(s);
  rpl::Dispatch d;
  d.process = 0;
  d.symbol = 0;
  d.start = 5;
  d.end = 9;
  t.dispatches.push_back(d);
  TempDir dir;
  rpl::report::RocprofCsvOptions options;
  options.output_dir = dir.file("csv");
  rpl::report::write_rocprof_csv(t, options);
  EXPECT_EQ(rows(dir.file("csv/kernel_trace.csv")).at(0).at("Kernel_Name"), "k<\"x\", 2>");
  // An unknown agent is an empty field.
  EXPECT_EQ(rows(dir.file("csv/kernel_trace.csv")).at(0).at("Agent_Id"), "");
}

TEST(ExportCsv, ApiFileNames) {
  EXPECT_EQ(rpl::report::api_trace_file_stem("HIP_RUNTIME_API_EXT"), "hip_api_trace");
  EXPECT_EQ(rpl::report::api_trace_file_stem("HIP_COMPILER_API_EXT"), "hip_api_trace");
  EXPECT_EQ(rpl::report::api_trace_file_stem("HSA_CORE_API"), "hsa_api_trace");
  EXPECT_EQ(rpl::report::api_trace_file_stem("MARKER_CORE_API"), "marker_api_trace");
  EXPECT_EQ(rpl::report::api_trace_file_stem("CUDA_DRIVER_API"), "cuda_api_trace");
  EXPECT_EQ(rpl::report::api_trace_file_stem(""), "other_api_trace");
}

TEST(ExportCsv, CommandLine) {
  TempDir dir;
  std::string db = rpl::test::make_fixture_db(dir.path());
  auto r = rpl::test::run_cli({"export", "csv", db, "-o", dir.file("out"), "--prefix", "p"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // logs go to stderr
  EXPECT_TRUE(fs::exists(dir.file("out/p_kernel_trace.csv")));
  EXPECT_NE(r.err.find("p_kernel_trace.csv"), std::string::npos);

  auto bad = rpl::test::run_cli({"export", "csv", db, "--agent-index", "sideways"});
  EXPECT_EQ(bad.exit_code, 2);
  auto missing = rpl::test::run_cli({"export", "csv", dir.file("nope.db"), "-o", dir.file("o2")});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("nope.db"), std::string::npos);
  // A folder that cannot be made (a file is in the way): exit 10 naming it.
  rpl::test::run_cli({"export", "csv", db, "-o", dir.file("out/p_kernel_trace.csv/x")});
  auto blocked = rpl::test::run_cli({"export", "csv", db, "-o", dir.file("out/p_kernel_trace.csv/x")});
  EXPECT_EQ(blocked.exit_code, 10) << blocked.err;
  EXPECT_NE(blocked.err.find("p_kernel_trace.csv/x"), std::string::npos) << blocked.err;
}

TEST(ExportCsv, CounterCollectionAsRocprofv3) {
  TempDir dir;
  rpl::test::FixtureRows fixture = rpl::test::fixture_rows();
  std::string db = dir.file("f.db");
  rpl::test::write_fixture(fixture, db);
  auto written = export_csv({db}, dir.file("csv"));
  EXPECT_EQ(names_of(written), "counter_collection.csv hip_api_trace.csv kernel_trace.csv memory_copy_trace.csv ");
  EXPECT_EQ(lines(dir.file("csv/counter_collection.csv")).at(0),
            "\"Correlation_Id\",\"Dispatch_Id\",\"Agent_Id\",\"Queue_Id\",\"Process_Id\",\"Thread_Id\",\"Grid_Size\","
            "\"Kernel_Id\",\"Kernel_Name\",\"Workgroup_Size\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
            "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Counter_Name\",\"Counter_Value\",\"Start_Timestamp\",\"End_Timestamp\"");
  auto counters = rows(dir.file("csv/counter_collection.csv"));
  // Two counters per dispatch, the rows of one dispatch and counter summed (SQ_WAVES 8192 + 8192).
  ASSERT_EQ(counters.size(), 2 * fixture.dispatches.size());
  const auto& d = fixture.dispatches.front();
  for (const auto& c : counters) {
    if (c.at("Dispatch_Id") != std::to_string(d.dispatch_id)) continue;
    EXPECT_EQ(c.at("Grid_Size"), std::to_string(uint64_t(d.grid[0]) * d.grid[1] * d.grid[2]));
    EXPECT_EQ(c.at("Workgroup_Size"), std::to_string(uint64_t(d.workgroup[0]) * d.workgroup[1] * d.workgroup[2]));
    EXPECT_EQ(c.at("Process_Id"), "4242");
    if (c.at("Counter_Name") == "SQ_WAVES") {
      EXPECT_EQ(c.at("Counter_Value"), "16384.000000");
    } else {
      EXPECT_EQ(c.at("Counter_Value"), std::to_string(100 + 10 * d.dispatch_id) + ".000000");  // TCC_HIT
    }
  }
}

TEST(ExportCsv, CounterValuesBelowOneAreScientific) {
  rpl::Trace t;
  t.processes.push_back({});
  rpl::KernelSymbol s;
  s.process = 0;
  t.symbols.push_back(s);
  rpl::Dispatch d;
  d.process = 0;
  d.symbol = 0;
  t.dispatches.push_back(d);
  t.counters.push_back({0, t.strings.intern("OccupancyPercent"), 0.168555351});
  t.counters.push_back({0, t.strings.intern("Zero"), 0});
  TempDir dir;
  rpl::report::RocprofCsvOptions options;
  options.output_dir = dir.file("csv");
  rpl::report::write_rocprof_csv(t, options);
  auto counters = rows(dir.file("csv/counter_collection.csv"));
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters[0].at("Counter_Value"), "1.68555351e-01");
  EXPECT_EQ(counters[1].at("Counter_Value"), "0.00000000e+00");
}

// 1M dispatches are written in pieces: every row is there and the file ends with a complete line.
TEST(ExportCsv, MillionDispatches) {
  rpl::app::AnalyzeResults r = rpl::test::many_dispatches_results(1'000'000);
  TempDir dir;
  rpl::report::RocprofCsvOptions options;
  options.output_dir = dir.file("csv");
  auto t0 = std::chrono::steady_clock::now();
  rpl::report::write_rocprof_csv(r.trace, options);
  RecordProperty("seconds", std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  std::ifstream in(dir.file("csv/kernel_trace.csv"));
  std::size_t lines_read = 0;
  std::string line, last;
  while (std::getline(in, line)) {
    ++lines_read;
    last = line;
  }
  EXPECT_EQ(lines_read, 1'000'001u);
  EXPECT_EQ(last.rfind("\"KERNEL_DISPATCH\"", 0), 0u) << last;
  EXPECT_NE(last.find(",\"k<1>\","), std::string::npos) << last;
}

namespace {

// A CUDA run as `profile --library-trace` leaves it: RUN/rocpd/HOST/513_results.db and RUN/library_logs/ with
// cuBLAS's API log (a real excerpt: cublasSgemm_v2 at 11:10:00, cublasGemmEx at 11:10:04, process 513) and the
// clock that puts 11:10:00 UTC at 500 s on the trace's clock. The trace: one GEMM launched by the logging thread in
// each of those two seconds, and a kernel of ATen's.
struct LoggedRun {
  std::string run, db;
  explicit LoggedRun(const TempDir& dir) : run(dir.file("run")), db(dir.file("run/rocpd/host/513_results.db")) {
    constexpr rpl::TimeNs kS = 1'000'000'000;
    rpl::test::InMemoryTrace t;
    t.add_process(513);
    t.trace.processes[0].guid = "3f2b8c1e-5d4a-4c7b-9e21-0a6f5d8b7c90";
    const rpl::Index agent = t.add_agent("sm_90");
    const rpl::Index gemm = t.add_symbol("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x32_cublas");
    const rpl::Index fill = t.add_symbol("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >");
    const uint32_t thread = static_cast<uint32_t>(139788713652992ull);  // the log's pthread_self, low 32 bits
    for (auto [symbol, host] : {std::pair{fill, 500 * kS + 100'000'000}, std::pair{gemm, 500 * kS + 200'000'000},
                                std::pair{gemm, 504 * kS + 300'000'000}})
      t.add_cuda_launch(symbol, host, thread, agent);
    fs::create_directories(fs::path(db).parent_path());
    rpl::rocpd::write_process(t.trace, 0, db);
    const std::string logs = run + "/library_logs";
    fs::create_directories(logs);
    fs::copy_file(std::string(RPL_SOURCE_DIR) + "/tests/data/library_logs/cublas.log", logs + "/cublas.log");
    std::ofstream(logs + "/clock.txt") << "realtime_ns=" << 1795950600LL * kS << "\ntrace_clock_ns=" << 500 * kS
                                       << "\nutc_offset_s=0\n";
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(ExportCsv, LibraryApiLogsBesideTheDatabaseGoToLibraryTraceCsv) {
  TempDir dir;
  LoggedRun run(dir);
  auto r = rpl::test::run_cli({"export", "csv", run.db, "-o", dir.file("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("4 calls in the libraries' API logs"), std::string::npos) << r.err;
  const std::string csv = slurp(dir.file("out/library_trace.csv"));
  // Each GEMM call owns its thread's cuBLAS launch inside its second (not ATen's kernel before it) and is timed by
  // that launch; the set-up calls are listed, linked to nothing. As `profile --library-trace` writes the file.
  const std::string thread = std::to_string(static_cast<uint32_t>(139788713652992ull));
  EXPECT_NE(csv.find("\"cuBLAS\",\"cublasSgemm_v2\",513," + thread + ",500200000000,500200002000,2000,1,0,20000,\"\","
                     "\"time_window\",\"transa=CUBLAS_OP_N transb=CUBLAS_OP_N m=1024 n=512 k=768\"\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\"cuBLAS\",\"cublasGemmEx\",513," + thread + ",504300000000,504300002000,2000,1,0,20000,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\"cuBLAS\",\"cublasCreate_v2\",513," + thread + ",500000000000,500000000000,0,0,0,0,\"\",\"none\""),
            std::string::npos)
      << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5) << csv;  // the header and the log's four calls

  // The logs moved away from the database: named with --library-logs; without them no library_trace.csv.
  fs::rename(run.run + "/library_logs", dir.file("moved_logs"));
  auto none = rpl::test::run_cli({"export", "csv", run.db, "-o", dir.file("out2")});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_FALSE(fs::exists(dir.file("out2/library_trace.csv")));
  EXPECT_TRUE(fs::exists(dir.file("out2/kernel_trace.csv")));
  auto named = rpl::test::run_cli({"export", "csv", run.db, "-o", dir.file("out3"), "--library-logs", dir.file("moved_logs")});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(slurp(dir.file("out3/library_trace.csv")), csv);
}

TEST(ExportCsv, BadLibraryLogsWriteNothingAndSaySo) {
  TempDir dir;
  LoggedRun run(dir);
  auto missing = rpl::test::run_cli({"export", "csv", run.db, "-o", dir.file("out"), "--library-logs", dir.file("nope")});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_NE(missing.err.find("nope"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir.file("out")));
  // A log cut off in a call record's header line: exit 4 naming the log, no file written, the log untouched.
  const std::string log = run.run + "/library_logs/cublas.log";
  std::ofstream(log, std::ios::app) << "I! cuBLAS (v13.0) function called:\n";
  const std::string before = slurp(log);
  auto corrupt = rpl::test::run_cli({"export", "csv", run.db, "-o", dir.file("out")});
  EXPECT_EQ(corrupt.exit_code, 4) << corrupt.err;
  EXPECT_NE(corrupt.err.find("cublas.log"), std::string::npos) << corrupt.err;
  EXPECT_FALSE(fs::exists(dir.file("out")));
  EXPECT_EQ(slurp(log), before);
}
