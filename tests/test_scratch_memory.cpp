// Scratch-memory tracing (issue 33): the rocpd_memory_allocate rows of level SCRATCH that rocprofv3
// --scratch-memory-trace writes (AMD's rocpd_tables.sql columns; AMD's scratch_memory view reads the same rows),
// read into ScratchOperation, summarised with the kernels that need scratch, and written as
// scratch_memory_trace.csv (export csv) and scratch_memory.json (schema). Bad rows are refused with the file
// and row named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/scratch_memory.hpp"
#include "report/scratch_memory_report.hpp"
#include "store/rocpd_reader.hpp"
#include "store/rocpd_scratch_memory.hpp"
#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"
#include "testing/cli.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

using rpl::ScratchOperation;
using rpl::test::read_file;
using rpl::test::TempDir;

namespace {

constexpr rpl::TimeNs kT0 = 1'000'000'000;

// pid 4242, GPU agent 2 (logical index 1, gfx942); kernel "spill" (384 bytes of scratch per work-item, two
// dispatches) and "clean" (none). Scratch: ALLOC 2 MiB (5 us), REALLOC 8 MiB (20 us), FREE, RECLAIM; and a
// REAL allocation (hipMalloc, --memory-allocation-trace) that is not scratch.
std::string write_trace(const TempDir& dir) {
  const std::string path = dir.file("scratch_results.db");
  rpl::rocpd::NodeRow node;
  node.hostname = "node01";
  rpl::rocpd::ProcessRow proc;
  proc.pid = 4242;
  rpl::rocpd::Writer w(path, node, proc);
  rpl::rocpd::AgentRow cpu;
  cpu.id = 1;
  cpu.is_gpu = false;
  cpu.name = "cpu";
  w.add_agent(cpu);
  rpl::rocpd::AgentRow gpu;
  gpu.id = 2;
  gpu.name = "gfx942";
  gpu.absolute_index = 1;
  gpu.logical_index = 1;
  w.add_agent(gpu);
  w.add_queue(3, "Queue 3");
  w.add_stream(0, "Default Stream");
  for (int k = 1; k <= 2; ++k) {
    rpl::rocpd::KernelSymbolRow s;
    s.id = k;
    s.kernel_name = s.display_name = k == 1 ? "spill" : "clean";
    w.add_kernel_symbol(s);
  }
  auto dispatch = [&](int64_t id, int64_t kernel, uint32_t scratch, rpl::TimeNs start) {
    rpl::rocpd::DispatchRow d;
    d.dispatch_id = d.correlation_id = id;
    d.agent_id = 2;
    d.kernel_id = kernel;
    d.queue_id = 3;
    d.start = start;
    d.end = start + 10'000;
    d.private_segment_size = scratch;
    w.add_dispatch(d);
  };
  auto op = [&](const char* type, const char* level, rpl::TimeNs start, rpl::TimeNs end, uint64_t size) {
    rpl::rocpd::MemoryAllocationRow a;
    a.tid = 11;
    a.agent_id = 2;
    a.queue_id = 3;
    a.type = type;
    a.level = level;
    a.start = start;
    a.end = end;
    a.size = size;
    a.address = 0x7000;
    a.extdata_json = R"({"flags": 2})";
    w.add_memory_allocation(a);
  };
  op("ALLOC", "SCRATCH", kT0, kT0 + 5'000, 2u << 20);
  dispatch(1, 1, 256, kT0 + 6'000);
  op("REALLOC", "SCRATCH", kT0 + 20'000, kT0 + 40'000, 8u << 20);
  dispatch(2, 1, 384, kT0 + 41'000);
  dispatch(3, 2, 0, kT0 + 60'000);
  op("FREE", "SCRATCH", kT0 + 80'000, kT0 + 81'000, 0);
  op("RECLAIM", "SCRATCH", kT0 + 90'000, kT0 + 92'000, 0);
  op("ALLOC", "REAL", kT0 + 95'000, kT0 + 96'000, 1u << 30);
  w.finish();
  return path;
}

}  // namespace

TEST(ScratchMemory, ReadFromRocpdWithTheAgentThreadAndFlags) {
  TempDir dir;
  const std::string db = write_trace(dir);
  const auto ops = rpl::rocpd::read_scratch_memory(db);
  ASSERT_EQ(ops.size(), 4u);  // the REAL allocation is not scratch
  EXPECT_EQ(ops[0].kind, ScratchOperation::Kind::Alloc);
  EXPECT_EQ(ops[1].kind, ScratchOperation::Kind::Realloc);
  EXPECT_EQ(ops[2].kind, ScratchOperation::Kind::Free);
  EXPECT_EQ(ops[3].kind, ScratchOperation::Kind::Reclaim);
  EXPECT_EQ(ops[0].pid, 4242);
  EXPECT_EQ(ops[0].tid, 11u);
  EXPECT_EQ(ops[0].agent, "gfx942");
  EXPECT_EQ(ops[0].agent_index, 1);
  EXPECT_EQ(ops[0].queue_id, 3);
  EXPECT_EQ(ops[0].flags, 2u);
  EXPECT_EQ(ops[0].size, 2u << 20);
  // the writer's rows are the ones rocpd's own scratch_memory view shows (it joins their events)
  rpl::test::SqlFile sql(db);
  EXPECT_EQ(sql.rows("SELECT COUNT(*), SUM(size) FROM scratch_memory")[0],
            (std::vector<std::string>{"4", std::to_string((2u << 20) + (8u << 20))}));
  EXPECT_EQ(sql.rows("SELECT DISTINCT category FROM scratch_memory")[0][0], "SCRATCH_MEMORY");
}

TEST(ScratchMemory, SummaryPerAgentAndTheKernelsThatNeedScratch) {
  TempDir dir;
  const std::string db = write_trace(dir);
  const auto summary =
      rpl::analysis::summarize_scratch(rpl::rocpd::read_scratch_memory(db), rpl::rocpd::read_databases({db}));
  EXPECT_EQ(summary.operations, 4u);
  EXPECT_EQ(summary.allocation_ns, 25'000);
  ASSERT_EQ(summary.agents.size(), 1u);
  const auto& a = summary.agents[0];
  EXPECT_EQ(a.allocations, 1u);
  EXPECT_EQ(a.reallocations, 1u);
  EXPECT_EQ(a.frees, 1u);
  EXPECT_EQ(a.reclaims, 1u);
  EXPECT_EQ(a.bytes_allocated, (2u << 20) + (8u << 20));
  EXPECT_EQ(a.largest_allocation, 8u << 20);
  EXPECT_EQ(a.longest_allocation_ns, 20'000);
  ASSERT_EQ(summary.kernels.size(), 1u);  // "clean" needs none
  EXPECT_EQ(summary.kernels[0].name, "spill");
  EXPECT_EQ(summary.kernels[0].dispatches, 2u);
  EXPECT_EQ(summary.kernels[0].max_bytes_per_work_item, 384u);

  const auto trace = rpl::rocpd::read_databases({db});
  EXPECT_EQ(rpl::report::write_scratch_outputs(dir.path().string(), rpl::rocpd::read_scratch_memory(db), trace,
                                               "rocprofv3 --scratch-memory-trace"),
            1u);
  EXPECT_EQ(rpl::test::validate_against_schema("scratch-memory", dir.file("scratch_memory.json")), "");
  const auto doc = nlohmann::json::parse(read_file(dir.file("scratch_memory.json")));
  EXPECT_EQ(doc["agents"][0]["agent"], "gfx942");
  EXPECT_EQ(doc["kernels"][0]["max_bytes_per_work_item"], 384);
}

TEST(ScratchMemory, ExportCsvWritesRocprofv3sScratchFile) {
  TempDir dir;
  auto r = rpl::test::run_cli({"export", "csv", write_trace(dir), "-o", dir.file("csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_file(dir.file("csv/scratch_memory_trace.csv")),
            std::string(rpl::report::kScratchMemoryTraceHeader) + "\n" +
                "\"SCRATCH_MEMORY\",\"SCRATCH_MEMORY_ALLOC\",\"Agent 1\",3,11,2,1000000000,1000005000,2097152\n"
                "\"SCRATCH_MEMORY\",\"SCRATCH_MEMORY_REALLOC\",\"Agent 1\",3,11,2,1000020000,1000040000,8388608\n"
                "\"SCRATCH_MEMORY\",\"SCRATCH_MEMORY_FREE\",\"Agent 1\",3,11,2,1000080000,1000081000,0\n"
                "\"SCRATCH_MEMORY\",\"SCRATCH_MEMORY_ASYNC_RECLAIM\",\"Agent 1\",3,11,2,1000090000,1000092000,0\n");
}

TEST(ScratchMemory, BadRowsAreRefusedNamingTheFileAndRow) {
  TempDir dir;
  const std::string db = write_trace(dir);
  {
    rpl::test::SqlFile sql(db);
    const std::string table = sql.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE "
                                       "'rocpd_memory_allocate%'")[0][0];
    sql.exec("UPDATE \"" + table + "\" SET \"end\" = start - 1 WHERE type = 'FREE'");
  }
  try {
    rpl::rocpd::read_scratch_memory(db);
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::InputInvalid);
    EXPECT_NE(std::string(e.what()).find(db), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ends before it starts"), std::string::npos) << e.what();
  }
  auto r = rpl::test::run_cli({"export", "csv", db, "-o", dir.file("csv")});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("ends before it starts"), std::string::npos) << r.err;
  // not a database at all: the reader's own codes
  const std::string text = dir.file("notes_results.db");
  { std::ofstream(text) << "not sqlite\n"; }
  try {
    rpl::rocpd::read_scratch_memory(text);
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::InputCorrupt) << e.what();
  }
  try {
    rpl::rocpd::read_scratch_memory(dir.file("missing.db"));
    ADD_FAILURE() << "no error";
  } catch (const rpl::Error& e) {
    EXPECT_EQ(e.code(), rpl::ExitCode::InputMissing) << e.what();
  }
}
