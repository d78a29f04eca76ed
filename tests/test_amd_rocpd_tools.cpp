// AMD's own rocpd tooling on databases rocm-perf writes (tests/amd_rocpd/README.md).
//
// AmdRocpdSql: AMD's rocpd_tables.sql and view files (vendored, tests/amd_rocpd/sql/) against our databases:
// same columns and foreign keys, AMD's views read in full and keep every row, our writer's views give the rows
// of AMD's, and per kernel the counts and durations of AMD's `kernels` / `top_kernels` views equal
// `rocm-perf analyze --json`. Always runs.
// AmdRocpdPython: AMD's `rocpd` Python package itself (`rocpd summary`, `rocpd query`, time window) from a
// rocprofiler-sdk source tree named by RPL_ROCPROFILER_SDK_SRC; skips visibly without it or without pandas.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "store/rocpd_counters_append.hpp"
#include "store/rocpd_device_metrics.hpp"
#include "store/rocpd_writer.hpp"
#include "support/process.hpp"
#include "testing/cli.hpp"
#include "testing/in_memory_trace.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace {

using rpl::test::read_file;
using rpl::test::run_cli;
using rpl::test::TempDir;

const std::string kSource = RPL_SOURCE_DIR;
constexpr int kSkipped = 77;

struct DriverResult {
  int exit_code = -1;
  std::string out, err;
  nlohmann::json report;
};

// `rocm-perf analyze --json` of the databases, then the driver on the same databases.
DriverResult check_with_amd(const std::vector<std::string>& dbs, const TempDir& dir, const std::string& amd_source = "") {
  std::vector<std::string> analyze = {"analyze", "--json", "--top", "100000", "--no-html", "-o", dir.file("analyze")};
  analyze.insert(analyze.end(), dbs.begin(), dbs.end());
  auto a = run_cli(analyze);
  EXPECT_EQ(a.exit_code, 0) << a.err;
  { std::ofstream(dir.file("analyze.json")) << a.out; }

  rpl::ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", kSource + "/tests/amd_rocpd/check_amd_rocpd.py", "--analyze-json",
               dir.file("analyze.json"), "--work-dir", dir.file("work"), "--report", dir.file("report.json")};
  if (!amd_source.empty()) {
    spec.argv.push_back("--amd-source");
    spec.argv.push_back(amd_source);
  }
  spec.argv.insert(spec.argv.end(), dbs.begin(), dbs.end());
  spec.stdout_file = dir.file("driver.out");
  spec.stderr_file = dir.file("driver.err");
  const auto r = rpl::run_process(spec);
  DriverResult out;
  out.exit_code = r.exit_code;
  out.out = read_file(dir.file("driver.out"));
  out.err = read_file(dir.file("driver.err"));
  const auto report = read_file(dir.file("report.json"));
  if (!report.empty()) out.report = nlohmann::json::parse(report);
  return out;
}

std::vector<std::string> example_traces() {
  return {kSource + "/examples/traces/multistream-h100.db", kSource + "/examples/traces/multistream-h100-roofline.db",
          kSource + "/examples/traces/generated-4streams.db"};
}

std::pair<std::string, std::string> path_with_fake_rocprofv3() {
  const char* path = std::getenv("PATH");
  return {"PATH", std::string(RPL_TEST_DOUBLES_DIR) + ":" + (path ? path : "/usr/bin:/bin")};
}

// The databases of `rocm-perf profile --roofline` on AMD (the stand-in rocprofv3 writes the trace of two
// processes; rocm-perf appends the pmc passes' counter values to them).
std::vector<std::string> rocprofv3_path_databases(const TempDir& dir) {
  const auto out = dir.file("profile");
  auto r = run_cli({"profile", "--roofline", "--runs", "1", "-o", out, "--", "/bin/true"},
                   {path_with_fake_rocprofv3(), {"FAKE_ROCPROFV3_ARCH", "gfx942"}, {"FAKE_ROCPROFV3_PROCESSES", "2"},
                    {"FAKE_ROCPROFV3_KERNELS", "gemm(float*):4:50000;softmax(float*):2:10000"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto profile = nlohmann::json::parse(read_file(out + "/profile.json"));
  return profile["runs"]["per_run"][0]["databases"].get<std::vector<std::string>>();
}

// AMD's schema file `name` (tests/amd_rocpd/sql/) with its placeholders filled in as librocprofiler-sdk-rocpd
// does: {{uuid}} is the table suffix, {{guid}} the process GUID.
std::string amd_sql(const std::string& name, const std::string& suffix, const std::string& guid) {
  std::string text = read_file(kSource + "/tests/amd_rocpd/sql/" + name);
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{{uuid}}", suffix}, {"{{guid}}", guid}})
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

// A database laid out by AMD's own DDL, as rocprofv3 creates it (AMD's tables, metadata rows and views), holding
// a small MI300X trace written row by row as rocprofv3 fills it: 3 gemm and 2 softmax dispatches, one
// host-to-device copy, one HIP API region per operation.
void make_amd_layout_database(const std::string& path) {
  const std::string guid = "0d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5", suffix = "_0d1e2f30_4a5b_4c6d_8e9f_a0b1c2d3e4f5";
  rpl::test::SqlFile db(path);
  for (const char* file : {"rocpd_tables.sql", "rocpd_indexes.sql", "rocpd_views.sql", "data_views.sql",
                           "summary_views.sql", "marker_views.sql"})
    db.exec(amd_sql(file, suffix, guid));
  std::string rows = R"SQL(
INSERT INTO rocpd_info_node{{uuid}} (id, hash, machine_id, system_name, hostname) VALUES (1, 77, 'machine-77', 'Linux', 'mi300x-host');
INSERT INTO rocpd_info_process{{uuid}} (id, nid, ppid, pid, init, fini, start, "end", command)
  VALUES (1, 1, 1, 4242, 1000, 900000, 1000, 900000, './app');
INSERT INTO rocpd_info_thread{{uuid}} (id, nid, ppid, pid, tid, start, "end") VALUES (1, 1, 1, 1, 4242, 1000, 900000);
INSERT INTO rocpd_info_agent{{uuid}} (id, nid, pid, type, absolute_index, logical_index, type_index, uuid, name, model_name, vendor_name, product_name, user_name, extdata) VALUES
  (1, 1, 1, 'CPU', 0, 0, 0, 0, 'AMD EPYC 9534', '', 'CPU', 'AMD EPYC 9534', '', '{}'),
  (2, 1, 1, 'GPU', 1, 1, 0, 0, 'gfx942', 'aqua_vanjaram', 'AMD', 'AMD Instinct MI300X', '',
   '{"cu_count":304,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"lds_size_in_kb":64,"max_engine_clk_fcompute":2100}');
INSERT INTO rocpd_info_queue{{uuid}} (id, nid, pid, name) VALUES (1, 1, 1, 'Queue 0');
INSERT INTO rocpd_info_stream{{uuid}} (id, nid, pid, name) VALUES (1, 1, 1, 'Stream 0');
INSERT INTO rocpd_info_code_object{{uuid}} (id, nid, pid, agent_id, uri, load_base, load_size, load_delta, storage_type)
  VALUES (1, 1, 1, 2, 'file:///app#offset=8192&size=4096', 0, 4096, 0, 'FILE');
INSERT INTO rocpd_info_kernel_symbol{{uuid}} (id, nid, pid, code_object_id, kernel_name, display_name, kernel_object, kernarg_segment_size, kernarg_segment_alignment, group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) VALUES
  (1, 1, 1, 1, '_Z4gemmPf.kd', 'gemm(float*)', 4096, 8, 8, 0, 0, 32, 64, 0),
  (2, 1, 1, 1, '_Z7softmaxPf.kd', 'softmax(float*)', 8192, 8, 8, 1024, 0, 16, 32, 0);
INSERT INTO rocpd_string{{uuid}} (id, string) VALUES (1, 'KERNEL_DISPATCH'), (2, 'MEMORY_COPY'), (3, 'HIP_RUNTIME_API'),
  (4, 'hipLaunchKernel'), (5, 'MEMORY_COPY_HOST_TO_DEVICE'), (6, 'hipMemcpy');
INSERT INTO rocpd_event{{uuid}} (id, category_id, stack_id, parent_stack_id, correlation_id) VALUES
  (1, 2, 1, 0, 0), (2, 3, 1, 0, 0),
  (3, 1, 2, 0, 0), (4, 3, 2, 0, 0), (5, 1, 3, 0, 0), (6, 3, 3, 0, 0), (7, 1, 4, 0, 0), (8, 3, 4, 0, 0),
  (9, 1, 5, 0, 0), (10, 3, 5, 0, 0), (11, 1, 6, 0, 0), (12, 3, 6, 0, 0);
INSERT INTO rocpd_memory_copy{{uuid}} (id, nid, pid, tid, start, "end", name_id, dst_agent_id, dst_address, src_agent_id, src_address, size, queue_id, stream_id, region_name_id, event_id)
  VALUES (1, 1, 1, 1, 10000, 60000, 5, 2, 4096, 1, 8192, 1048576, NULL, 1, 6, 1);
INSERT INTO rocpd_kernel_dispatch{{uuid}} (id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, "end", private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) VALUES
  (1, 1, 1, 1, 2, 1, 1, 1, 1, 100000, 150000, 0, 0, 256, 1, 1, 262144, 1, 1, 4, 3),
  (2, 1, 1, 1, 2, 2, 2, 1, 1, 151000, 161000, 0, 1024, 256, 1, 1, 65536, 1, 1, 4, 5),
  (3, 1, 1, 1, 2, 1, 3, 1, 1, 162000, 214000, 0, 0, 256, 1, 1, 262144, 1, 1, 4, 7),
  (4, 1, 1, 1, 2, 2, 4, 1, 1, 215000, 226000, 0, 1024, 256, 1, 1, 65536, 1, 1, 4, 9),
  (5, 1, 1, 1, 2, 1, 5, 1, 1, 227000, 278000, 0, 0, 256, 1, 1, 262144, 1, 1, 4, 11);
INSERT INTO rocpd_region{{uuid}} (id, nid, pid, tid, start, "end", name_id, event_id) VALUES
  (1, 1, 1, 1, 9000, 61000, 6, 2), (2, 1, 1, 1, 90000, 95000, 4, 4), (3, 1, 1, 1, 96000, 97000, 4, 6),
  (4, 1, 1, 1, 98000, 99000, 4, 8), (5, 1, 1, 1, 99100, 99500, 4, 10), (6, 1, 1, 1, 99600, 99900, 4, 12);
)SQL";
  for (auto at = rows.find("{{uuid}}"); at != std::string::npos; at = rows.find("{{uuid}}", at))
    rows.replace(at, 8, suffix);
  db.exec(rows);
}

const char* amd_source() {
  const char* s = std::getenv("RPL_ROCPROFILER_SDK_SRC");
  return s && *s ? s : nullptr;
}

}  // namespace

TEST(AmdRocpdSql, ExampleTracesMatchAmdSchemaAndViews) {
  for (const auto& db : example_traces()) {
    TempDir dir;
    const auto r = check_with_amd({db}, dir);
    EXPECT_EQ(r.exit_code, 0) << db << "\n" << r.out << r.err;
    // AMD's joined views returned our rows (the driver compared them; here: they were not empty).
    EXPECT_GT(r.report["databases"][db]["view_rows"]["kernels"].get<int>(), 0) << db;
    EXPECT_GT(r.report["databases"][db]["view_rows"]["regions"].get<int>(), 0) << db;
    EXPECT_GT(r.report["databases"][db]["view_rows"]["memory_copies"].get<int>(), 0) << db;
  }
}

TEST(AmdRocpdSql, CudaPathCountersReadThroughAmdCountersCollection) {
  // multistream-h100-roofline.db: our CUPTI collector's trace of an H100 run with ncu counters appended.
  TempDir dir;
  const auto db = kSource + "/examples/traces/multistream-h100-roofline.db";
  const auto r = check_with_amd({db}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto& entry = r.report["databases"][db];
  EXPECT_EQ(entry["view_rows"]["counters_collection"], 585);
  EXPECT_FALSE(entry["counters"].empty());
}

TEST(AmdRocpdSql, RocprofV3PathDatabasesWithAppendedCounters) {
  TempDir dir;
  const auto dbs = rocprofv3_path_databases(dir);
  ASSERT_EQ(dbs.size(), 2u);
  const auto r = check_with_amd(dbs, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Every (dispatch, counter) value rocm-perf stored is 1000 (the stand-in's two dimension rows of 500, summed
  // by rocm-perf); AMD's counters_collection sums per dispatch and counter, so each kernel/counter pair gives
  // 1000 per dispatch: gemm 4 dispatches, softmax 2, in each of the two processes.
  for (const auto& db : dbs) {
    const auto& counters = r.report["databases"][db]["counters"];
    ASSERT_FALSE(counters.empty()) << db;
    for (const auto& [key, value] : counters.items()) {
      const int dispatches = key.rfind("gemm", 0) == 0 ? 4 : 2;
      EXPECT_EQ(value[0], dispatches) << key;
      EXPECT_DOUBLE_EQ(value[1].get<double>(), 1000.0 * dispatches) << key;
    }
  }
}

TEST(AmdRocpdSql, CountersAppendedToADatabaseOfAmdsLayout) {
  // The AMD path of `profile --roofline` appends counter values to rocprofv3's own databases: here one laid out
  // by AMD's DDL. rocm-perf reads it and appends to it; AMD's views then see the trace and the counters.
  TempDir dir;
  const auto db = dir.file("amd_layout.db");
  make_amd_layout_database(db);
  std::vector<rpl::rocpd::CounterValue> values;
  for (int64_t dispatch = 1; dispatch <= 5; ++dispatch) {
    values.push_back({dispatch, "SQ_WAVES", 1024});
    values.push_back({dispatch, "SQ_INSTS_VALU", 100});  // two dimension rows of one counter, as rocprofv3
    values.push_back({dispatch, "SQ_INSTS_VALU", 50});
  }
  const auto appended = rpl::rocpd::append_counters(db, values);
  EXPECT_EQ(appended.values_written, 15u);
  EXPECT_EQ(appended.counters_added, 2u);
  const auto r = check_with_amd({db}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto& entry = r.report["databases"][db];
  EXPECT_EQ(entry["view_rows"]["kernels"], 5);
  EXPECT_EQ(entry["view_rows"]["memory_copies"], 1);
  EXPECT_EQ(entry["view_rows"]["regions"], 6);
  EXPECT_EQ(entry["counters"]["gemm(float*)|SQ_WAVES"], nlohmann::json::array({3, 3072.0}));
  EXPECT_EQ(entry["counters"]["gemm(float*)|SQ_INSTS_VALU"], nlohmann::json::array({3, 450.0}));
  EXPECT_EQ(entry["counters"]["softmax(float*)|SQ_INSTS_VALU"], nlohmann::json::array({2, 300.0}));
  EXPECT_TRUE(entry["extra_tables"].empty()) << entry["extra_tables"].dump();
}

TEST(AmdRocpdSql, DeviceMonitorSamplesAreRowsOfAmdsSamplesView) {
  // `profile --monitor-device` appends power/clock samples to the run's database: AMD's `samples` view joins each
  // sample to its track's thread and to an event, so each needs both to be seen by rocprofv3's readers.
  TempDir dir;
  const std::string db = dir.file("monitored.db");
  std::filesystem::copy_file(kSource + "/examples/traces/multistream-h100.db", db);
  rpl::DeviceMetricSeries power{0, "NVIDIA H100 80GB HBM3", "power", "W", "nvml", {1000, 2000, 3000}, {110.5, 250.0, 260.25}};
  rpl::DeviceMetricSeries clock{0, "NVIDIA H100 80GB HBM3", "sm_clock", "MHz", "nvml", {1000, 3000}, {1980, 1980}};
  ASSERT_EQ(rpl::rocpd::append_device_metrics(db, {power, clock}, ""), 5u);
  const auto r = check_with_amd({db}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.report["databases"][db]["view_rows"]["samples"], 5) << r.report.dump(1);
}

TEST(AmdRocpdSql, OurWriterViewsGiveAmdsRows) {
  // The views rocm-perf writes into a file must show what AMD's views of the same name show. Chosen to expose
  // the three ways they once differed: an average that is not a whole number of ns (AMD's top_kernels/top
  // divide integers), and a copy to a second agent over another span (AMD's busy divides by the span of all
  // dispatches and copies, not by the agent's own).
  rpl::test::InMemoryTrace b;
  b.add_process(7);
  b.trace.processes[0].guid = "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d";
  const auto gpu = b.add_agent("gfx942", 64);
  const auto cpu = b.add_agent("cpu");
  b.trace.agents[cpu].is_gpu = false;
  b.trace.agents[gpu].rocpd_id = 1;
  b.trace.agents[cpu].rocpd_id = 2;
  const auto sym = b.add_symbol("scale(float*, int)", "_Z5scalePfi");
  b.add_dispatch(sym, 1000, 2000, gpu, 256);
  b.add_dispatch(sym, 3000, 4001, gpu, 256);
  b.add_dispatch(sym, 5000, 6003, gpu, 256);
  auto& copy = b.add_copy(10000, 30000);
  copy.src_agent = gpu;
  copy.dst_agent = cpu;
  copy.bytes = 4096;
  TempDir dir;
  const auto db = dir.file("written.db");
  rpl::rocpd::write_process(b.trace, 0, db);
  const auto r = check_with_amd({db}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto& entry = r.report["databases"][db];
  EXPECT_NE(entry["our_views_equal_amds"].dump().find("\"busy\""), std::string::npos);
  EXPECT_NE(entry["our_views_equal_amds"].dump().find("\"top_kernels\""), std::string::npos);
  // AMD's busy: the CPU agent's 20000 ns of copy over the whole span 1000..30000.
  bool cpu_row = false;
  for (const auto& row : entry["busy"])
    if (row[1] == "CPU") {
      cpu_row = true;
      EXPECT_EQ(row[2], 20000);
      EXPECT_EQ(row[3], 29000);
    }
  EXPECT_TRUE(cpu_row) << entry["busy"].dump();
}

TEST(AmdRocpdSql, ADispatchAmdsViewsWouldDropIsCaught) {
  // A dispatch whose queue row is missing vanishes from AMD's `kernels` view (INNER JOIN on the queue's
  // process); the driver must say so, so that a writer regression cannot pass.
  TempDir dir;
  const auto db = dir.file("broken.db");
  std::filesystem::copy_file(kSource + "/examples/traces/multistream-h100.db", db);
  std::string dispatches;
  {
    rpl::test::SqlFile sql(db);
    const auto table =
        sql.value("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_kernel_dispatch_%'");
    sql.exec("UPDATE " + table + " SET queue_id = 999 WHERE id = (SELECT MIN(id) FROM " + table + ")");
    dispatches = sql.value("SELECT COUNT(*) FROM " + table);
  }
  const auto r = check_with_amd({db}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto kept = std::to_string(std::stoi(dispatches) - 1) + " of " + dispatches;
  EXPECT_NE(r.err.find("AMD's kernels view keeps every rocpd_kernel_dispatch row (" + kept + ")"), std::string::npos)
      << r.err;
}

TEST(AmdRocpdPython, SummaryQueryAndTimeWindowOnOurDatabases) {
  if (!amd_source())
    GTEST_SKIP() << "RPL_ROCPROFILER_SDK_SRC is not set: AMD's rocpd Python package is not vendored; point it at a "
                    "rocprofiler-sdk source tree (tests/amd_rocpd/README.md) to run AMD's rocpd summary/query";
  TempDir profile_dir;
  std::vector<std::vector<std::string>> sets;
  for (const auto& db : example_traces()) sets.push_back({db});
  sets.push_back(rocprofv3_path_databases(profile_dir));  // two processes merged by AMD's importer
  const auto amd_layout = profile_dir.file("amd_layout.db");
  make_amd_layout_database(amd_layout);
  const std::vector<rpl::rocpd::CounterValue> waves = {{1, "SQ_WAVES", 1024}, {2, "SQ_WAVES", 256}};
  rpl::rocpd::append_counters(amd_layout, waves);
  sets.push_back({amd_layout});
  for (const auto& dbs : sets) {
    TempDir dir;
    const auto r = check_with_amd(dbs, dir, amd_source());
    if (r.exit_code == kSkipped) GTEST_SKIP() << r.out;
    EXPECT_EQ(r.exit_code, 0) << dbs[0] << "\n" << r.out << r.err;
    EXPECT_FALSE(r.report["amd_python"]["summary_kernels"].empty()) << dbs[0];
    EXPECT_EQ(r.report["amd_python"]["summary_processes"].size(), dbs.size()) << dbs[0];
    for (const auto& [file, same] : r.report["vendored_sql_matches_source"].items())
      EXPECT_TRUE(same.get<bool>()) << "tests/amd_rocpd/sql/" << file << " differs from the source tree's";
  }
}
