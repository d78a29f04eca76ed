// The rocpd store: what the Writer writes is what the reader reads, the reference fixture of
// amd-profiling-stack.md §1.9 reads correctly, AMD's views work on our files, several processes merge,
// and later schema versions are tolerated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "store/rocpd_reader.hpp"
#include "store/rocpd_schema.hpp"
#include "store/rocpd_writer.hpp"
#include "store/sync_calls.hpp"
#include "store/uuid.hpp"
#include "testing/fixtures.hpp"
#include "testing/sql.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

using rocpd::read_database;
using rocpd::read_databases;
using test::FixtureSpec;
using test::SqlFile;

constexpr const char* kGuid = "0198a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b";
constexpr const char* kSuffix = "_0198a0b1_2c3d_7e4f_8a9b_0c1d2e3f4a5b";
constexpr TimeNs kT0 = 1'000'000'000;

template <class T>
Index find_by_rocpd_id(const std::vector<T>& table, Index process, int64_t id) {
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].process == process && table[i].rocpd_id == id) return static_cast<Index>(i);
  return kNoIndex;
}

// ---------------------------------------------------------------------------------------------------
// Writer -> reader: every written row comes back with every field.

TEST(RocpdStore, FixtureReadsBackEveryField) {
  test::TempDir dir;
  test::FixtureRows rows = test::fixture_rows();
  std::string path = dir.file("fixture_results.db");
  test::write_fixture(rows, path);

  Trace t;
  read_database(t, path);

  ASSERT_EQ(t.processes.size(), 1u);
  const Process& p = t.processes[0];
  EXPECT_EQ(p.guid, kGuid);
  EXPECT_EQ(p.source_file, path);
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.ppid, 4000);
  EXPECT_EQ(p.hostname, "node01");
  EXPECT_EQ(p.command, "./app --size 1048576");
  EXPECT_EQ(p.start, rows.process.start);
  EXPECT_EQ(p.end, rows.process.end);

  ASSERT_EQ(t.agents.size(), rows.agents.size());
  for (std::size_t i = 0; i < rows.agents.size(); ++i) {
    const auto& want = rows.agents[i];
    Index a = find_by_rocpd_id(t.agents, 0, want.id);
    ASSERT_NE(a, kNoIndex) << "agent " << want.id;
    EXPECT_EQ(t.agents[a].is_gpu, want.is_gpu);
    EXPECT_EQ(t.agents[a].name, want.name);
    EXPECT_EQ(t.agents[a].product_name, want.product_name);
    EXPECT_EQ(t.agents[a].vendor_name, want.vendor_name);
    EXPECT_EQ(t.agents[a].absolute_index, want.absolute_index);
    EXPECT_EQ(t.agents[a].logical_index, want.logical_index);
  }
  const Agent& gpu = t.agents[find_by_rocpd_id(t.agents, 0, 2)];
  EXPECT_EQ(gpu.cu_count, 304u);
  EXPECT_EQ(gpu.simd_per_cu, 4u);
  EXPECT_EQ(gpu.max_waves_per_simd, 8u);
  EXPECT_EQ(gpu.wave_front_size, 64u);
  EXPECT_EQ(gpu.lds_size_kb, 64u);
  EXPECT_EQ(gpu.max_clock_mhz, 2100u);
  EXPECT_EQ(gpu.gfx_target_version, 90402u);
  const Agent& cpu = t.agents[find_by_rocpd_id(t.agents, 0, 0)];
  EXPECT_EQ(cpu.cu_count, 0u);  // '{}' extdata: unknown

  ASSERT_EQ(t.queues.size(), 3u);
  ASSERT_EQ(t.streams.size(), 3u);
  for (const auto& [id, name] : rows.queues) EXPECT_EQ(t.queues[find_by_rocpd_id(t.queues, 0, id)].name, name);
  for (const auto& [id, name] : rows.streams) EXPECT_EQ(t.streams[find_by_rocpd_id(t.streams, 0, id)].name, name);

  ASSERT_EQ(t.symbols.size(), 3u);
  for (const auto& want : rows.symbols) {
    Index k = find_by_rocpd_id(t.symbols, 0, want.id);
    ASSERT_NE(k, kNoIndex);
    const KernelSymbol& s = t.symbols[k];
    EXPECT_EQ(t.strings.at(s.mangled_name), want.kernel_name);
    EXPECT_EQ(s.code_object_id, want.code_object_id);
    EXPECT_EQ(s.kernarg_size, want.kernarg_segment_size);
    EXPECT_EQ(s.static_lds_bytes, want.group_segment_size);
    EXPECT_EQ(s.private_segment_bytes, want.private_segment_size);
    EXPECT_EQ(s.sgpr_count, want.sgpr_count);
    EXPECT_EQ(s.arch_vgpr_count, want.arch_vgpr_count);
    EXPECT_EQ(s.accum_vgpr_count, want.accum_vgpr_count);
  }
  EXPECT_EQ(t.strings.at(t.symbols[find_by_rocpd_id(t.symbols, 0, 1)].display_name), "compute(float*, int)");
  // Symbol 3 has only its mangled name: shown demangled, without ".kd".
  EXPECT_EQ(t.strings.at(t.symbols[find_by_rocpd_id(t.symbols, 0, 3)].display_name), "consume(float*)");

  // 3 kernels on each of 2 streams + the consumer kernel = 7 dispatches, in written order.
  ASSERT_EQ(t.dispatches.size(), 7u);
  ASSERT_EQ(rows.dispatches.size(), 7u);
  for (std::size_t i = 0; i < rows.dispatches.size(); ++i) {
    const auto& want = rows.dispatches[i];
    const Dispatch& d = t.dispatches[i];
    SCOPED_TRACE(testing::Message() << "dispatch " << want.dispatch_id);
    EXPECT_EQ(d.dispatch_id, want.dispatch_id);
    EXPECT_EQ(d.start, want.start);
    EXPECT_EQ(d.end, want.end);
    EXPECT_EQ(d.correlation_id, want.correlation_id);
    EXPECT_EQ(d.process, 0u);
    EXPECT_EQ(t.symbols[d.symbol].rocpd_id, want.kernel_id);
    EXPECT_EQ(t.agents[d.agent].rocpd_id, want.agent_id);
    EXPECT_EQ(t.queues[d.queue].rocpd_id, want.queue_id);
    EXPECT_EQ(t.streams[d.stream].rocpd_id, want.stream_id);
    EXPECT_EQ(d.thread, static_cast<uint32_t>(want.tid));
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(d.grid[k], want.grid[k]);
      EXPECT_EQ(d.block[k], want.workgroup[k]);
    }
    EXPECT_EQ(d.lds_bytes, want.group_segment_size);
    EXPECT_EQ(d.scratch_bytes, want.private_segment_size);
  }
  // Hand check of one: i=2, s=2 launch is dispatch 6, start t0 + 200000 + 2*50000 + 5000, 22000 long.
  EXPECT_EQ(t.dispatches[5].start, kT0 + 305000);
  EXPECT_EQ(t.dispatches[5].duration(), 22000);
  EXPECT_EQ(t.kernel_name(t.dispatches[6]), "consume(float*)");

  ASSERT_EQ(t.copies.size(), 2u);
  for (std::size_t i = 0; i < rows.copies.size(); ++i) {
    const auto& want = rows.copies[i];
    const MemoryCopy& c = t.copies[i];
    EXPECT_EQ(c.copy_id, want.id);
    EXPECT_EQ(c.start, want.start);
    EXPECT_EQ(c.end, want.end);
    EXPECT_EQ(c.correlation_id, want.correlation_id);
    EXPECT_EQ(t.strings.at(c.kind), want.kind);
    EXPECT_EQ(t.streams[c.stream].rocpd_id, want.stream_id);
    EXPECT_EQ(c.queue, kNoIndex);  // NULL queue_id, as rocprofv3 1.0.0 writes
    EXPECT_EQ(t.agents[c.src_agent].rocpd_id, want.src_agent_id);
    EXPECT_EQ(t.agents[c.dst_agent].rocpd_id, want.dst_agent_id);
    EXPECT_EQ(c.bytes, want.size);
    EXPECT_EQ(c.thread, 4242u);
  }

  ASSERT_EQ(t.api_calls.size(), rows.regions.size());
  ASSERT_EQ(t.api_calls.size(), 13u);  // 2 memcpy + 7 launches + record + wait + 2 syncs
  for (std::size_t i = 0; i < rows.regions.size(); ++i) {
    const auto& want = rows.regions[i];
    const ApiCall& call = t.api_calls[i];
    EXPECT_EQ(t.strings.at(call.name), want.name);
    EXPECT_EQ(t.strings.at(call.category), want.category);
    EXPECT_EQ(call.correlation_id, want.correlation_id);
    EXPECT_EQ(call.start, want.start);
    EXPECT_EQ(call.end, want.end);
    EXPECT_EQ(call.thread, 4242u);
    EXPECT_EQ(call.process, 0u);
  }

  // Host sync calls (in call order) then the GPU barrier records.
  Index s0 = find_by_rocpd_id(t.streams, 0, 0), s1 = find_by_rocpd_id(t.streams, 0, 1),
        s2 = find_by_rocpd_id(t.streams, 0, 2);
  ASSERT_EQ(t.sync_ops.size(), 6u);
  struct Want {
    SyncKind kind;
    SyncSource source;
    Index stream;
    uint64_t event;
    int64_t correlation;
  };
  const Want want_ops[] = {
      {SyncKind::EventRecord, SyncSource::HostApi, s1, 0xe1, 8},
      {SyncKind::StreamWaitEvent, SyncSource::HostApi, s2, 0xe1, 9},
      {SyncKind::StreamSynchronize, SyncSource::HostApi, s0, 0, 12},  // stream "0x0": the default stream
      {SyncKind::DeviceSynchronize, SyncSource::HostApi, kNoIndex, 0, 13},
      {SyncKind::EventRecord, SyncSource::GpuBarrier, s1, 0xe1, 8},
      {SyncKind::StreamWaitEvent, SyncSource::GpuBarrier, s2, 0xe1, 9},
  };
  for (std::size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE(testing::Message() << "sync op " << i);
    const SyncOp& op = t.sync_ops[i];
    EXPECT_EQ(op.kind, want_ops[i].kind);
    EXPECT_EQ(op.source, want_ops[i].source);
    EXPECT_EQ(op.stream, want_ops[i].stream);
    EXPECT_EQ(op.event, want_ops[i].event);
    EXPECT_EQ(op.correlation_id, want_ops[i].correlation);
    EXPECT_EQ(op.thread, 4242u);
    EXPECT_EQ(op.process, 0u);
  }
  // The device sync returns 1000 ns after the last GPU activity, the D2H copy ending at t0 + 406000.
  EXPECT_EQ(t.sync_ops[3].end, kT0 + 407000);
  // GPU SIGNAL starts when the last stream-1 kernel (i=2: t0 + 300000 + 21000) ends.
  EXPECT_EQ(t.sync_ops[4].start, kT0 + 321000);
  EXPECT_EQ(t.sync_ops[4].end, kT0 + 322000);
}

// Field-by-field equality of two traces (entities matched by position; strings by content).
void expect_same_trace(const Trace& a, const Trace& b) {
  auto str = [](const Trace& t, Index i) { return t.strings.at(i); };
  ASSERT_EQ(a.processes.size(), b.processes.size());
  for (std::size_t i = 0; i < a.processes.size(); ++i) {
    EXPECT_EQ(a.processes[i].guid, b.processes[i].guid);
    EXPECT_EQ(a.processes[i].pid, b.processes[i].pid);
    EXPECT_EQ(a.processes[i].ppid, b.processes[i].ppid);
    EXPECT_EQ(a.processes[i].hostname, b.processes[i].hostname);
    EXPECT_EQ(a.processes[i].command, b.processes[i].command);
    EXPECT_EQ(a.processes[i].start, b.processes[i].start);
    EXPECT_EQ(a.processes[i].end, b.processes[i].end);
  }
  ASSERT_EQ(a.agents.size(), b.agents.size());
  for (std::size_t i = 0; i < a.agents.size(); ++i) {
    const Agent &x = a.agents[i], &y = b.agents[i];
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.rocpd_id, y.rocpd_id);
    EXPECT_EQ(x.is_gpu, y.is_gpu);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.product_name, y.product_name);
    EXPECT_EQ(x.vendor_name, y.vendor_name);
    EXPECT_EQ(x.absolute_index, y.absolute_index);
    EXPECT_EQ(x.logical_index, y.logical_index);
    EXPECT_EQ(x.cu_count, y.cu_count);
    EXPECT_EQ(x.simd_per_cu, y.simd_per_cu);
    EXPECT_EQ(x.max_waves_per_simd, y.max_waves_per_simd);
    EXPECT_EQ(x.wave_front_size, y.wave_front_size);
    EXPECT_EQ(x.lds_size_kb, y.lds_size_kb);
    EXPECT_EQ(x.max_clock_mhz, y.max_clock_mhz);
    EXPECT_EQ(x.gfx_target_version, y.gfx_target_version);
  }
  ASSERT_EQ(a.queues.size(), b.queues.size());
  for (std::size_t i = 0; i < a.queues.size(); ++i) {
    EXPECT_EQ(a.queues[i].process, b.queues[i].process);
    EXPECT_EQ(a.queues[i].rocpd_id, b.queues[i].rocpd_id);
    EXPECT_EQ(a.queues[i].name, b.queues[i].name);
  }
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (std::size_t i = 0; i < a.streams.size(); ++i) {
    EXPECT_EQ(a.streams[i].process, b.streams[i].process);
    EXPECT_EQ(a.streams[i].rocpd_id, b.streams[i].rocpd_id);
    EXPECT_EQ(a.streams[i].name, b.streams[i].name);
  }
  ASSERT_EQ(a.symbols.size(), b.symbols.size());
  for (std::size_t i = 0; i < a.symbols.size(); ++i) {
    const KernelSymbol &x = a.symbols[i], &y = b.symbols[i];
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.rocpd_id, y.rocpd_id);
    EXPECT_EQ(str(a, x.mangled_name), str(b, y.mangled_name));
    EXPECT_EQ(str(a, x.display_name), str(b, y.display_name));
    EXPECT_EQ(x.code_object_id, y.code_object_id);
    EXPECT_EQ(x.kernarg_size, y.kernarg_size);
    EXPECT_EQ(x.static_lds_bytes, y.static_lds_bytes);
    EXPECT_EQ(x.private_segment_bytes, y.private_segment_bytes);
    EXPECT_EQ(x.sgpr_count, y.sgpr_count);
    EXPECT_EQ(x.arch_vgpr_count, y.arch_vgpr_count);
    EXPECT_EQ(x.accum_vgpr_count, y.accum_vgpr_count);
  }
  ASSERT_EQ(a.dispatches.size(), b.dispatches.size());
  for (std::size_t i = 0; i < a.dispatches.size(); ++i) {
    const Dispatch &x = a.dispatches[i], &y = b.dispatches[i];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.dispatch_id, y.dispatch_id);
    EXPECT_EQ(x.correlation_id, y.correlation_id);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.symbol, y.symbol);
    EXPECT_EQ(x.agent, y.agent);
    EXPECT_EQ(x.queue, y.queue);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.thread, y.thread);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(x.grid[k], y.grid[k]);
      EXPECT_EQ(x.block[k], y.block[k]);
    }
    EXPECT_EQ(x.lds_bytes, y.lds_bytes);
    EXPECT_EQ(x.scratch_bytes, y.scratch_bytes);
  }
  ASSERT_EQ(a.copies.size(), b.copies.size());
  for (std::size_t i = 0; i < a.copies.size(); ++i) {
    const MemoryCopy &x = a.copies[i], &y = b.copies[i];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.copy_id, y.copy_id);
    EXPECT_EQ(x.correlation_id, y.correlation_id);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(str(a, x.kind), str(b, y.kind));
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.queue, y.queue);
    EXPECT_EQ(x.src_agent, y.src_agent);
    EXPECT_EQ(x.dst_agent, y.dst_agent);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.bytes, y.bytes);
  }
  ASSERT_EQ(a.api_calls.size(), b.api_calls.size());
  for (std::size_t i = 0; i < a.api_calls.size(); ++i) {
    const ApiCall &x = a.api_calls[i], &y = b.api_calls[i];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(x.correlation_id, y.correlation_id);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(str(a, x.name), str(b, y.name));
    EXPECT_EQ(str(a, x.category), str(b, y.category));
  }
  ASSERT_EQ(a.sync_ops.size(), b.sync_ops.size());
  for (std::size_t i = 0; i < a.sync_ops.size(); ++i) {
    const SyncOp &x = a.sync_ops[i], &y = b.sync_ops[i];
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.source, y.source);
    EXPECT_EQ(x.process, y.process);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.event, y.event);
    EXPECT_EQ(x.correlation_id, y.correlation_id);
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
  }
}

TEST(RocpdStore, RoundTripThroughWriteProcess) {
  test::TempDir dir;
  Trace first;
  read_database(first, test::make_fixture_db(dir.path()));
  std::string copy = dir.file("copy_results.db");
  rocpd::write_process(first, 0, copy);
  Trace second;
  read_database(second, copy);
  expect_same_trace(first, second);
  EXPECT_EQ(second.processes[0].source_file, copy);
}

TEST(RocpdStore, RoundTripWithoutApiCallsKeepsSyncOps) {
  // Loaded without API calls, the host sync ops are written back as calls of their own.
  test::TempDir dir;
  rocpd::ReadOptions no_calls;
  no_calls.load_api_calls = false;
  Trace first;
  read_database(first, test::make_fixture_db(dir.path()), no_calls);
  EXPECT_TRUE(first.api_calls.empty());
  ASSERT_EQ(first.sync_ops.size(), 6u);
  std::string copy = dir.file("copy_results.db");
  rocpd::write_process(first, 0, copy);
  Trace second;
  read_database(second, copy, no_calls);
  expect_same_trace(first, second);
}

// ---------------------------------------------------------------------------------------------------
// The verified fixture of amd-profiling-stack.md §1.9, created by plain SQL.

const char* kReferenceInserts = R"SQL(
INSERT INTO rocpd_info_node_U (id,hash,machine_id,system_name,hostname,release,version,hardware_name,domain_name)
  VALUES (3735928559,3735928559,'deadbeefmachineid','Linux','node01','6.8.0','#1 SMP','x86_64','(none)');
INSERT INTO rocpd_info_process_U (id,nid,ppid,pid,init,fini,start,end,command)
  VALUES (4242,3735928559,4000,4242,1000000000,9000000000,1000000000,9000000000,'./app');
INSERT INTO rocpd_info_thread_U (id,nid,ppid,pid,tid) VALUES (4242,3735928559,4000,4242,4242);
INSERT INTO rocpd_info_agent_U (id,nid,pid,type,absolute_index,logical_index,type_index,uuid,name,model_name,vendor_name,product_name,user_name,extdata) VALUES
  (0,3735928559,4242,'CPU',0,0,0,0,'AMD EPYC 9454','','CPU','AMD EPYC 9454','AMD EPYC 9454','{}'),
  (2,3735928559,4242,'GPU',2,1,0,1234,'gfx942','aqua_vanjaram','AMD','AMD Instinct MI300X','AMD Instinct MI300X',
   '{"cu_count":304,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"num_xcc":8,"max_engine_clk_fcompute":2100,"lds_size_in_kb":64,"gfx_target_version":90402}');
INSERT INTO rocpd_string_U (id,string) VALUES (1,''),(2,'KERNEL_DISPATCH'),(3,'MEMORY_COPY'),
  (4,'MEMORY_COPY_HOST_TO_DEVICE'),(5,'HIP_RUNTIME_API_EXT'),(6,'hipLaunchKernel');
INSERT INTO rocpd_info_stream_U (id,nid,pid,name) VALUES (0,3735928559,4242,'Default Stream');
INSERT INTO rocpd_info_queue_U (id,nid,pid,name) VALUES (0,3735928559,4242,'Default Queue'),(1,3735928559,4242,'Queue 0');
INSERT INTO rocpd_info_code_object_U (id,nid,pid,agent_id,uri,load_base,load_size,load_delta,storage_type,extdata)
  VALUES (1,3735928559,4242,2,'file:///app#offset=8192&size=12345',140000000000,65536,140000000000,'FILE','{"size":12345}');
INSERT INTO rocpd_info_kernel_symbol_U (id,nid,pid,code_object_id,kernel_name,display_name,kernel_object,kernarg_segment_size,
  kernarg_segment_alignment,group_segment_size,private_segment_size,sgpr_count,arch_vgpr_count,accum_vgpr_count,extdata)
  VALUES (10,3735928559,4242,1,'_Z6vecAddPfS_S_i.kd','vecAdd(float*, float*, float*, int)',140000004096,280,8,0,0,16,8,0,
          '{"kernel_id":10,"formatted_kernel_name":"vecAdd(float*, float*, float*, int)"}');
INSERT INTO rocpd_info_pmc_U (id,nid,pid,agent_id,target_arch,name,symbol,description,component,value_type,block,expression,is_constant,is_derived,extdata)
  VALUES (7,3735928559,4242,2,'GPU','SQ_WAVES','SQ_WAVES','waves','rocm','ABS','SQ','',0,0,'{}'),
         (9,3735928559,4242,2,'GPU','TCC_HIT','TCC_HIT','L2 hits','rocm','ABS','TCC','',0,0,'{}');
INSERT INTO rocpd_event_U (id,category_id,stack_id,parent_stack_id,correlation_id) VALUES (100,2,1,1,0),(101,3,2,2,0),(102,5,1,0,0);
INSERT INTO rocpd_kernel_dispatch_U (id,nid,pid,tid,agent_id,kernel_id,dispatch_id,queue_id,stream_id,start,end,private_segment_size,
  group_segment_size,workgroup_size_x,workgroup_size_y,workgroup_size_z,grid_size_x,grid_size_y,grid_size_z,region_name_id,event_id)
  VALUES (1,3735928559,4242,4242,2,10,1,1,0,2000000000,2000016000,0,0,256,1,1,1048576,1,1,1,100);
INSERT INTO rocpd_pmc_event_U (id,event_id,pmc_id,value) VALUES (1,100,7,2048.0),(2,100,7,2048.0),(3,100,9,100.0),(4,100,9,150.0);
INSERT INTO rocpd_memory_copy_U (id,nid,pid,tid,start,end,name_id,dst_agent_id,dst_address,src_agent_id,src_address,size,stream_id,event_id)
  VALUES (1,3735928559,4242,4242,1500000000,1500100000,4,2,140100000000,0,94000000000,4194304,0,101);
INSERT INTO rocpd_region_U (id,nid,pid,tid,start,end,name_id,event_id) VALUES (1,3735928559,4242,4242,1990000000,1990005000,6,102);
)SQL";

std::string make_reference_fixture(const test::TempDir& dir) {
  std::string path = dir.file("reference_results.db");
  std::string inserts = kReferenceInserts;
  for (std::size_t pos; (pos = inserts.find("_U ")) != std::string::npos;)
    inserts.replace(pos, 3, std::string(kSuffix) + " ");
  SqlFile db(path);
  db.exec("PRAGMA foreign_keys = ON;");
  db.exec(rocpd::schema::tables_sql(kGuid));
  db.exec(rocpd::schema::passthrough_views_sql(kGuid));
  db.exec(rocpd::schema::data_views_sql());
  db.exec("INSERT INTO rocpd_metadata" + std::string(kSuffix) + " (tag, value) VALUES ('schema_version', '3'), " +
          "('uuid', '" + kSuffix + "'), ('guid', '" + kGuid + "');");
  db.exec(inserts);
  return path;
}

TEST(RocpdStore, ReferenceFixtureViewsGiveTheVerifiedResults) {
  test::TempDir dir;
  SqlFile db(make_reference_fixture(dir));
  // kernels: 1 row; 2000016000 - 2000000000 = 16000 ns.
  auto k = db.rows("SELECT name, queue, stream, duration, vgpr_count, agent_type, category, corr_id FROM kernels");
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0], (std::vector<std::string>{"vecAdd(float*, float*, float*, int)", "Queue 0", "Default Stream",
                                             "16000", "8", "GPU", "KERNEL_DISPATCH", "0"}));
  // counters_collection sums the instance rows: SQ_WAVES 2048 + 2048 = 4096, TCC_HIT 100 + 150 = 250.
  auto c = db.rows("SELECT counter_name, value, grid_size, workgroup_size FROM counters_collection ORDER BY counter_name");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], (std::vector<std::string>{"SQ_WAVES", "4096.0", "1048576", "256"}));
  EXPECT_EQ(c[1], (std::vector<std::string>{"TCC_HIT", "250.0", "1048576", "256"}));
  auto m = db.rows("SELECT name, size, dst_device, src_device, duration FROM memory_copies");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], (std::vector<std::string>{"MEMORY_COPY_HOST_TO_DEVICE", "4194304", "gfx942", "AMD EPYC 9454",
                                             "100000"}));
  auto r = db.rows("SELECT name, category, duration FROM regions");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0], (std::vector<std::string>{"hipLaunchKernel", "HIP_RUNTIME_API_EXT", "5000"}));
  // top_kernels in us: 16000 ns = 16.0 us, 100 % of kernel time.
  EXPECT_EQ(db.rows("SELECT name, total_calls, total_duration, percentage FROM top_kernels")[0],
            (std::vector<std::string>{"vecAdd(float*, float*, float*, int)", "1", "16.0", "100.0"}));
  // busy for agent 2: kernel 16000 + copy (to agent 2) 100000 = 116000 ns over
  // 2000016000 - 1500000000 = 500016000 ns.
  auto b = db.rows("SELECT agent_id, type, GpuTime, WallTime FROM busy");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], (std::vector<std::string>{"2", "GPU", "116000", "500016000"}));
  EXPECT_NEAR(db.number("SELECT Busy FROM busy"), 116000.0 / 500016000.0, 1e-12);
  EXPECT_EQ(db.value("SELECT kernel_id FROM kernel_symbols"), "10");
  EXPECT_EQ(db.value("SELECT code_object_size FROM code_objects"), "12345");
  EXPECT_EQ(db.value("SELECT hostname FROM processes"), "node01");
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM threads"), "1");
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM pmc_events"), "4");
  EXPECT_EQ(db.rows("PRAGMA foreign_key_check").size(), 0u);
}

TEST(RocpdStore, ReferenceFixtureReadsIntoTheModel) {
  test::TempDir dir;
  std::string path = make_reference_fixture(dir);
  Trace t = read_databases({path});

  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].guid, kGuid);  // the guid column default
  EXPECT_EQ(t.processes[0].pid, 4242);
  EXPECT_EQ(t.processes[0].ppid, 4000);
  EXPECT_EQ(t.processes[0].hostname, "node01");
  EXPECT_EQ(t.processes[0].command, "./app");
  EXPECT_EQ(t.processes[0].start, 1000000000);
  EXPECT_EQ(t.processes[0].end, 9000000000);

  ASSERT_EQ(t.agents.size(), 2u);
  const Agent& gpu = t.agents[find_by_rocpd_id(t.agents, 0, 2)];
  EXPECT_TRUE(gpu.is_gpu);
  EXPECT_EQ(gpu.name, "gfx942");
  EXPECT_EQ(gpu.product_name, "AMD Instinct MI300X");
  EXPECT_EQ(gpu.vendor_name, "AMD");
  EXPECT_EQ(gpu.absolute_index, 2);
  EXPECT_EQ(gpu.logical_index, 1);
  EXPECT_EQ(gpu.cu_count, 304u);
  EXPECT_EQ(gpu.simd_per_cu, 4u);
  EXPECT_EQ(gpu.max_waves_per_simd, 8u);
  EXPECT_EQ(gpu.wave_front_size, 64u);
  EXPECT_EQ(gpu.lds_size_kb, 64u);
  EXPECT_EQ(gpu.max_clock_mhz, 2100u);
  EXPECT_EQ(gpu.gfx_target_version, 90402u);
  EXPECT_FALSE(t.agents[find_by_rocpd_id(t.agents, 0, 0)].is_gpu);

  ASSERT_EQ(t.dispatches.size(), 1u);
  const Dispatch& d = t.dispatches[0];
  EXPECT_EQ(d.dispatch_id, 1);
  EXPECT_EQ(d.correlation_id, 1);  // stack_id of event 100
  EXPECT_EQ(d.start, 2000000000);
  EXPECT_EQ(d.duration(), 16000);
  EXPECT_EQ(t.kernel_name(d), "vecAdd(float*, float*, float*, int)");
  EXPECT_EQ(t.strings.at(t.symbols[d.symbol].mangled_name), "_Z6vecAddPfS_S_i.kd");
  EXPECT_EQ(t.symbols[d.symbol].arch_vgpr_count, 8u);
  EXPECT_EQ(t.symbols[d.symbol].sgpr_count, 16u);
  EXPECT_EQ(t.symbols[d.symbol].kernarg_size, 280u);
  EXPECT_EQ(t.queues[d.queue].name, "Queue 0");
  EXPECT_EQ(t.streams[d.stream].name, "Default Stream");
  EXPECT_EQ(t.agents[d.agent].name, "gfx942");
  EXPECT_EQ(d.thread, 4242u);
  EXPECT_EQ(d.grid[0], 1048576u);
  EXPECT_EQ(d.block[0], 256u);

  ASSERT_EQ(t.copies.size(), 1u);
  EXPECT_EQ(t.strings.at(t.copies[0].kind), "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(t.copies[0].bytes, 4194304u);
  EXPECT_EQ(t.copies[0].correlation_id, 2);
  EXPECT_EQ(t.copies[0].duration(), 100000);
  EXPECT_EQ(t.agents[t.copies[0].dst_agent].name, "gfx942");
  EXPECT_EQ(t.agents[t.copies[0].src_agent].name, "AMD EPYC 9454");
  EXPECT_EQ(t.copies[0].queue, kNoIndex);

  ASSERT_EQ(t.api_calls.size(), 1u);
  EXPECT_EQ(t.strings.at(t.api_calls[0].name), "hipLaunchKernel");
  EXPECT_EQ(t.strings.at(t.api_calls[0].category), "HIP_RUNTIME_API_EXT");
  EXPECT_EQ(t.api_calls[0].correlation_id, 1);  // the launch and its dispatch share correlation id 1
  EXPECT_TRUE(t.sync_ops.empty());
}

// ---------------------------------------------------------------------------------------------------
// Our files work with AMD's views: the column lists of §1.6 and values computed by plain SQL.

TEST(RocpdStore, ViewsHaveTheRocprofv3Columns) {
  test::TempDir dir;
  SqlFile db(test::make_fixture_db(dir.path()));
  using Names = std::vector<std::string>;
  EXPECT_EQ(db.column_names("kernels"),
            (Names{"id", "guid", "tid", "category", "region", "name", "nid", "pid", "agent_abs_index",
                   "agent_log_index", "agent_type_index", "agent_type", "code_object_id", "kernel_id", "dispatch_id",
                   "stream_id", "queue_id", "queue", "stream", "start", "end", "duration", "grid_x", "grid_y",
                   "grid_z", "workgroup_x", "workgroup_y", "workgroup_z", "lds_size", "scratch_size", "vgpr_count",
                   "accum_vgpr_count", "sgpr_count", "static_lds_size", "static_scratch_size", "stack_id",
                   "parent_stack_id", "corr_id"}));
  EXPECT_EQ(db.column_names("memory_copies"),
            (Names{"id", "guid", "category", "nid", "pid", "tid", "start", "end", "duration", "name", "region_name",
                   "stream_id", "queue_id", "stream_name", "queue_name", "size", "dst_device", "dst_agent_abs_index",
                   "dst_agent_log_index", "dst_agent_type_index", "dst_agent_type", "dst_address", "src_device",
                   "src_agent_abs_index", "src_agent_log_index", "src_agent_type_index", "src_agent_type",
                   "src_address", "stack_id", "parent_stack_id", "corr_id"}));
  EXPECT_EQ(db.column_names("regions"),
            (Names{"id", "guid", "category", "name", "nid", "pid", "tid", "start", "end", "duration", "event_id",
                   "stack_id", "parent_stack_id", "corr_id", "extdata", "call_stack", "line_info"}));
  EXPECT_EQ(db.column_names("kernel_symbols"),
            (Names{"id", "guid", "nid", "pid", "code_object_id", "kernel_name", "display_name", "kernel_object",
                   "kernarg_segment_size", "kernarg_segment_alignment", "group_segment_size", "private_segment_size",
                   "sgpr_count", "arch_vgpr_count", "accum_vgpr_count", "kernel_symbol_size", "kernel_id",
                   "kernel_code_entry_byte_offset", "formatted_kernel_name", "demangled_kernel_name",
                   "truncated_kernel_name", "kernel_address"}));
  EXPECT_EQ(db.column_names("counters_collection"),
            (Names{"id", "guid", "dispatch_id", "kernel_id", "event_id", "correlation_id", "stack_id",
                   "parent_stack_id", "pid", "tid", "agent_id", "agent_abs_index", "agent_log_index",
                   "agent_type_index", "agent_type", "queue_id", "grid_size_x", "grid_size_y", "grid_size_z",
                   "grid_size", "kernel_name", "kernel_region", "workgroup_size_x", "workgroup_size_y",
                   "workgroup_size_z", "workgroup_size", "lds_block_size", "scratch_size", "vgpr_count",
                   "accum_vgpr_count", "sgpr_count", "counter_name", "counter_symbol", "component", "description",
                   "block", "expression", "value_type", "counter_id", "value", "start", "end", "is_constant",
                   "is_derived", "duration", "category", "nid", "extdata", "code_object_id"}));
  EXPECT_EQ(db.column_names("top_kernels"), (Names{"name", "total_calls", "total_duration", "average", "percentage"}));
  EXPECT_EQ(db.column_names("top"), (Names{"name", "total_calls", "total_duration", "average", "percentage"}));
  EXPECT_EQ(db.column_names("busy"), (Names{"agent_id", "type", "GpuTime", "WallTime", "Busy"}));
  EXPECT_EQ(db.column_names("processes"),
            (Names{"nid", "machine_id", "system_name", "hostname", "system_release", "system_version", "guid", "ppid",
                   "pid", "init", "start", "end", "fini", "command"}));
  EXPECT_EQ(db.column_names("threads"),
            (Names{"nid", "machine_id", "system_name", "hostname", "system_release", "system_version", "guid", "ppid",
                   "pid", "tid", "start", "end", "name"}));
  EXPECT_EQ(db.column_names("code_objects"),
            (Names{"id", "guid", "nid", "pid", "agent_abs_index", "uri", "load_base", "load_size", "load_delta",
                   "storage_type_str", "code_object_size", "storage_type", "memory_base", "memory_size"}));
  EXPECT_EQ(db.column_names("pmc_events"),
            (Names{"id", "guid", "pmc_id", "event_id", "category", "name", "nid", "pid", "dispatch_id", "start", "end",
                   "duration", "counter_name", "counter_value"}));
  EXPECT_EQ(db.column_names("stream_args"),
            (Names{"argument_id", "event_id", "arg_position", "arg_type", "arg_value", "stream_id", "nid", "pid",
                   "stream_name", "extdata"}));
  EXPECT_EQ(db.column_names("sample_regions")[8], "END");
  // The pass-through views have the columns of their tables; every view can be queried.
  for (auto base : rocpd::schema::table_names()) {
    std::string name = "rocpd_" + std::string(base);
    EXPECT_EQ(db.column_names(name), db.column_names(name + kSuffix)) << name;
    EXPECT_NO_THROW(db.rows("SELECT * FROM " + name + " LIMIT 1")) << name;
  }
  for (auto view : rocpd::schema::data_view_names())
    EXPECT_NO_THROW(db.rows("SELECT * FROM \"" + std::string(view) + "\" LIMIT 1")) << view;
}

TEST(RocpdStore, ViewsGiveTheFixtureTotals) {
  test::TempDir dir;
  SqlFile db(test::make_fixture_db(dir.path()));
  // Kernels: per i, stream 1 runs 21000 ns and stream 2 22000 ns; 3 * (21000 + 22000) + consumer 30000 = 159000.
  EXPECT_EQ(db.rows("SELECT COUNT(*), SUM(duration) FROM kernels")[0], (std::vector<std::string>{"7", "159000"}));
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM kernels WHERE name IS NULL"), "1");  // consumer: no display name
  // counters_collection: 7 dispatches x 2 counters. SQ_WAVES 8192 + 8192 = 16384 each: 7 * 16384 = 114688.
  // TCC_HIT 100 + 10 * id for ids 1..7: 700 + 10 * 28 = 980.
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM counters_collection"), "14");
  EXPECT_EQ(db.number("SELECT SUM(value) FROM counters_collection WHERE counter_name = 'SQ_WAVES'"), 114688.0);
  EXPECT_EQ(db.number("SELECT SUM(value) FROM counters_collection WHERE counter_name = 'TCC_HIT'"), 980.0);
  EXPECT_EQ(db.number("SELECT value FROM counters_collection WHERE counter_name = 'TCC_HIT' AND dispatch_id = 3"),
            130.0);
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM pmc_events"), "28");
  EXPECT_EQ(db.rows("SELECT name, size, src_device, dst_device FROM memory_copies ORDER BY id"),
            (std::vector<std::vector<std::string>>{
                {"MEMORY_COPY_HOST_TO_DEVICE", "1048576", "AMD EPYC 9454", "gfx942"},
                {"MEMORY_COPY_DEVICE_TO_HOST", "1048576", "gfx942", "AMD EPYC 9454"}}));
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM regions"), "13");
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM regions WHERE name = 'hipLaunchKernel'"), "7");
  // top_kernels (us): compute runs at i = 0, 2 on both streams: 2 * (21000 + 22000) = 86000 ns = 86.0 us;
  // reduce at i = 1: 43000 ns; consumer 30000 ns.
  EXPECT_EQ(db.rows("SELECT name, total_calls, total_duration FROM top_kernels"),
            (std::vector<std::vector<std::string>>{{"compute(float*, int)", "4", "86.0"},
                                                   {"reduce(float*)", "2", "43.0"},
                                                   {"NULL", "1", "30.0"}}));
  EXPECT_NEAR(db.number("SELECT percentage FROM top_kernels WHERE name = 'reduce(float*)'"), 43000.0 * 100 / 159000,
              1e-9);
  // busy, as AMD's view: each agent's time over the span of ALL dispatches and copies, [t0+100000 (H2D copy),
  // t0+406000 (end of the D2H copy)) = 306000 ns. Agent 2: kernels 159000 + H2D copy 50000 = 209000 ns; agent 0
  // receives the D2H copy: 40000 ns.
  EXPECT_EQ(db.rows("SELECT agent_id, type, GpuTime, WallTime FROM busy ORDER BY agent_id"),
            (std::vector<std::vector<std::string>>{{"0", "CPU", "40000", "306000"}, {"2", "GPU", "209000", "306000"}}));
  // stream_args: the stream args that carry extdata: 7 launches + 2 copies + record + wait = 11.
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM stream_args"), "11");
  EXPECT_EQ(db.value("SELECT stream_name FROM stream_args WHERE arg_value = '0x5500000200' LIMIT 1"), "Stream 2");
  // Strings are unique and '' is id 1, as in rocprofv3's files.
  EXPECT_EQ(db.value(std::string("SELECT string FROM rocpd_string") + kSuffix + " WHERE id = 1"), "");
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM rocpd_string WHERE string = 'hipLaunchKernel'"), "1");
  EXPECT_EQ(db.rows("SELECT tag, value FROM rocpd_metadata ORDER BY id"),
            (std::vector<std::vector<std::string>>{{"schema_version", "3"}, {"uuid", kSuffix}, {"guid", kGuid}}));
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM rocpd_event"), "24");  // 13 regions + 7 dispatches + 2 copies + 2 GPU ops
  EXPECT_EQ(db.value("SELECT COUNT(*) FROM rocpd_event_operation"), "2");
  EXPECT_EQ(db.value("SELECT COUNT(DISTINCT guid) FROM rocpd_kernel_dispatch"), "1");
  EXPECT_EQ(db.value("SELECT guid FROM rocpd_kernel_dispatch LIMIT 1"), kGuid);
  EXPECT_EQ(db.rows("PRAGMA foreign_key_check").size(), 0u);
}

// The tables have the 3.0.0 columns, types, NOT NULL flags and foreign keys of amd-profiling-stack.md §1.4
// ("!" marks NOT NULL; the count is the number of foreign keys), every guid defaults to the GUID, and the
// CHECK constraints hold.
TEST(RocpdStore, TablesHaveThe300Schema) {
  struct Table {
    const char* name;
    std::size_t foreign_keys;
    const char* columns;
  };
  const Table tables[] = {
      {"metadata", 0, "id INTEGER!, tag TEXT!, value TEXT!"},
      {"string", 0, "id INTEGER!, guid TEXT!, string TEXT!"},
      {"info_node", 0, "id INTEGER!, guid TEXT!, hash BIGINT!, machine_id TEXT!, system_name TEXT, hostname TEXT, release TEXT, version TEXT, hardware_name TEXT, domain_name TEXT"},
      {"info_process", 1, "id INTEGER!, guid TEXT!, nid INTEGER!, ppid INTEGER, pid INTEGER!, init BIGINT, fini BIGINT, start BIGINT, end BIGINT, command TEXT, environment JSONB!, extdata JSONB!"},
      {"info_thread", 2, "id INTEGER!, guid TEXT!, nid INTEGER!, ppid INTEGER, pid INTEGER!, tid INTEGER!, name TEXT, start BIGINT, end BIGINT, extdata JSONB!"},
      {"info_agent", 2, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, model_name TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT, extdata JSONB!"},
      {"info_queue", 2, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, name TEXT, extdata JSONB!"},
      {"info_stream", 2, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, name TEXT, extdata JSONB!"},
      {"info_pmc", 3, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, agent_id INTEGER, target_arch TEXT, event_code INT, instance_id INTEGER, name TEXT!, symbol TEXT!, description TEXT, long_description TEXT, component TEXT, units TEXT, value_type TEXT, block TEXT, expression TEXT, is_constant INTEGER, is_derived INTEGER, extdata JSONB!"},
      {"info_code_object", 3, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, agent_id INTEGER, uri TEXT, load_base BIGINT, load_size BIGINT, load_delta BIGINT, storage_type TEXT, extdata JSONB!"},
      {"info_kernel_symbol", 3, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, code_object_id INTEGER!, kernel_name TEXT, display_name TEXT, kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER, group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER, arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB!"},
      {"track", 4, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER, tid INTEGER, name_id INTEGER, extdata JSONB!"},
      {"event", 1, "id INTEGER!, guid TEXT!, category_id INTEGER, stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB!, line_info JSONB!, extdata JSONB!"},
      {"arg", 1, "id INTEGER!, guid TEXT!, event_id INTEGER!, position INTEGER!, type TEXT!, name TEXT!, value TEXT, extdata JSONB!"},
      {"pmc_event", 2, "id INTEGER!, guid TEXT!, event_id INTEGER, pmc_id INTEGER!, value REAL, extdata JSONB"},
      {"region", 5, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, tid INTEGER!, start BIGINT!, end BIGINT!, name_id INTEGER!, event_id INTEGER, extdata JSONB!"},
      {"sample", 2, "id INTEGER!, guid TEXT!, track_id INTEGER!, timestamp BIGINT!, event_id INTEGER, extdata JSONB!"},
      {"kernel_dispatch", 9, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, tid INTEGER, agent_id INTEGER!, kernel_id INTEGER!, dispatch_id INTEGER!, queue_id INTEGER!, stream_id INTEGER!, start BIGINT!, end BIGINT!, private_segment_size INTEGER, group_segment_size INTEGER, workgroup_size_x INTEGER!, workgroup_size_y INTEGER!, workgroup_size_z INTEGER!, grid_size_x INTEGER!, grid_size_y INTEGER!, grid_size_z INTEGER!, region_name_id INTEGER, event_id INTEGER, extdata JSONB!"},
      {"memory_copy", 10, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, tid INTEGER, start BIGINT!, end BIGINT!, name_id INTEGER!, dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER, size INTEGER!, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER, event_id INTEGER, extdata JSONB!"},
      {"memory_allocate", 7, "id INTEGER!, guid TEXT!, nid INTEGER!, pid INTEGER!, tid INTEGER, agent_id INTEGER, type TEXT, level TEXT, start BIGINT!, end BIGINT!, address INTEGER, size INTEGER!, queue_id INTEGER, stream_id INTEGER, event_id INTEGER, extdata JSONB!"},
  };
  test::TempDir dir;
  SqlFile db(test::make_fixture_db(dir.path()));
  for (const Table& table : tables) {
    std::string name = "rocpd_" + std::string(table.name) + kSuffix;
    std::string columns;
    for (auto& row : db.rows("PRAGMA table_info(\"" + name + "\")")) {
      // row: cid, name, type, notnull, dflt_value, pk
      columns += (columns.empty() ? "" : ", ") + row[1] + " " + row[2] + (row[3] == "1" ? "!" : "");
      if (row[1] == "guid") {
        EXPECT_EQ(row[4], std::string("'") + kGuid + "'") << name;
      }
      if (row[1] == "id") {
        EXPECT_EQ(row[5], "1") << name;  // the primary key
      }
    }
    EXPECT_EQ(columns, table.columns) << name;
    EXPECT_EQ(db.rows("PRAGMA foreign_key_list(\"" + name + "\")").size(), table.foreign_keys) << name;
  }
  // AUTOINCREMENT keys (sqlite_sequence exists) and the CHECK constraints.
  EXPECT_NE(db.value("SELECT COUNT(*) FROM sqlite_sequence"), "0");
  EXPECT_THROW(db.exec(std::string("UPDATE rocpd_info_agent") + kSuffix + " SET type = 'XPU'"), std::runtime_error);
  EXPECT_THROW(db.exec(std::string("UPDATE rocpd_info_pmc") + kSuffix + " SET value_type = 'SUM'"), std::runtime_error);
  EXPECT_THROW(db.exec(std::string("UPDATE rocpd_event_operation") + kSuffix + " SET type = 'BOTH'"),
               std::runtime_error);
  // The 3.0.1 table: 15 columns, nothing beyond what the reader needs is invented.
  EXPECT_EQ(db.column_names(std::string("rocpd_event_operation") + kSuffix).size(), 15u);
}

// ---------------------------------------------------------------------------------------------------
// Several processes.

FixtureSpec second_process() {
  FixtureSpec spec;
  spec.file_name = "second_results.db";
  spec.guid = "0198a0b1-2c3d-7e4f-8a9b-00000000beef";
  spec.pid = 4343;
  spec.kernels_per_stream = 2;  // ids collide with the first process: dispatches 1..5, agents 0 and 2, ...
  return spec;
}

void expect_consistent_processes(const Trace& t) {
  for (const Dispatch& d : t.dispatches) {
    EXPECT_EQ(t.agents[d.agent].process, d.process);
    EXPECT_EQ(t.symbols[d.symbol].process, d.process);
    EXPECT_EQ(t.queues[d.queue].process, d.process);
    EXPECT_EQ(t.streams[d.stream].process, d.process);
  }
  for (const SyncOp& op : t.sync_ops)
    if (op.stream != kNoIndex) {
      EXPECT_EQ(t.streams[op.stream].process, op.process);
    }
}

TEST(RocpdStore, MergesTwoDatabasesWithCollidingIds) {
  test::TempDir dir;
  std::string a = test::make_fixture_db(dir.path());
  std::string b = test::make_fixture_db(dir.path(), second_process());
  Trace t = read_databases({a, b});
  ASSERT_EQ(t.processes.size(), 2u);
  EXPECT_EQ(t.processes[0].pid, 4242);
  EXPECT_EQ(t.processes[1].pid, 4343);
  EXPECT_EQ(t.processes[1].source_file, b);
  // 7 + (2 * 2 + 1) = 12 dispatches; 2 + 2 copies; 2 * 2 agents; 6 + 6 sync ops.
  EXPECT_EQ(t.dispatches.size(), 12u);
  EXPECT_EQ(t.copies.size(), 4u);
  EXPECT_EQ(t.agents.size(), 4u);
  EXPECT_EQ(t.sync_ops.size(), 12u);
  EXPECT_EQ(std::count_if(t.dispatches.begin(), t.dispatches.end(), [](const auto& d) { return d.process == 1; }), 5);
  expect_consistent_processes(t);
}

// Copies every table of `from` into `into` (same suffixed names), making one file with two suffixes.
void attach_tables(const std::string& into, const std::string& from, const std::string& suffix) {
  SqlFile db(into);
  db.exec("ATTACH DATABASE '" + from + "' AS other");
  db.exec(rocpd::schema::tables_sql(std::string(suffix.substr(1, 8)) + "-" + suffix.substr(10, 4) + "-" +
                                    suffix.substr(15, 4) + "-" + suffix.substr(20, 4) + "-" + suffix.substr(25)));
  for (auto base : rocpd::schema::table_names()) {
    std::string table = "rocpd_" + std::string(base) + suffix;
    db.exec("INSERT INTO main." + table + " SELECT * FROM other." + table);
  }
  db.exec("DETACH DATABASE other");
}

TEST(RocpdStore, ReadsEverySuffixOfOneDatabaseAsAProcess) {
  test::TempDir dir;
  std::string a = test::make_fixture_db(dir.path());
  std::string b = test::make_fixture_db(dir.path(), second_process());
  attach_tables(a, b, "_0198a0b1_2c3d_7e4f_8a9b_00000000beef");
  Trace t = read_databases({a});
  ASSERT_EQ(t.processes.size(), 2u);
  // Suffixes are read in name order: ..._00000000beef before ..._0c1d2e3f4a5b.
  EXPECT_EQ(t.processes[0].guid, "0198a0b1-2c3d-7e4f-8a9b-00000000beef");
  EXPECT_EQ(t.processes[0].pid, 4343);
  EXPECT_EQ(t.processes[1].guid, kGuid);
  EXPECT_EQ(t.processes[1].pid, 4242);
  EXPECT_EQ(t.processes[1].source_file, a);
  EXPECT_EQ(t.dispatches.size(), 12u);
  expect_consistent_processes(t);
}

TEST(RocpdStore, FallsBackToUnsuffixedTables) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  {
    SqlFile db(path);
    for (auto& row : db.rows("SELECT name FROM sqlite_master WHERE type = 'view'")) db.exec("DROP VIEW \"" + row[0] + "\"");
    for (auto base : rocpd::schema::table_names())
      db.exec("ALTER TABLE rocpd_" + std::string(base) + kSuffix + " RENAME TO rocpd_" + std::string(base));
    db.exec("DELETE FROM rocpd_metadata WHERE tag = 'uuid'");
  }
  Trace t = read_databases({path});
  ASSERT_EQ(t.processes.size(), 1u);
  EXPECT_EQ(t.processes[0].guid, kGuid);  // from the metadata 'guid' row
  EXPECT_EQ(t.dispatches.size(), 7u);
  EXPECT_EQ(t.sync_ops.size(), 6u);
}

TEST(RocpdStore, SeparatesProcessesSharingUnsuffixedViewsByGuid) {
  // rocpd's merge tool exposes several processes through un-suffixed UNION ALL views; here the tables
  // behind them have suffixes the reader does not recognise, so only the views are found.
  test::TempDir dir;
  std::string a = test::make_fixture_db(dir.path());
  std::string b = test::make_fixture_db(dir.path(), second_process());
  std::string merged = dir.file("merged.db");
  test::write_merged_views(merged, a, b);
  Trace t = read_databases({merged});
  ASSERT_EQ(t.processes.size(), 2u);
  EXPECT_EQ(t.processes[0].pid, 4242);
  EXPECT_EQ(t.processes[1].pid, 4343);
  EXPECT_EQ(t.dispatches.size(), 12u);
  EXPECT_EQ(t.api_calls.size(), 13u + 11u);  // second: 2 memcpy + 5 launches + record + wait + 2 syncs
  EXPECT_EQ(t.sync_ops.size(), 12u);
  expect_consistent_processes(t);
}

// ---------------------------------------------------------------------------------------------------
// Later schema versions.

TEST(RocpdStore, ToleratesSchema302And303Columns) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  Trace before;
  read_database(before, path);
  {
    SqlFile db(path);
    std::string u = kSuffix;
    // 3.0.2: graph_exec_id/graph_node_id inserted before region_name_id; rebuild the table in that order.
    db.exec("CREATE TABLE kd_302 (id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, "
            "agent_id INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, "
            "start BIGINT, \"end\" BIGINT, private_segment_size INTEGER, group_segment_size INTEGER, "
            "workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x INTEGER, "
            "grid_size_y INTEGER, grid_size_z INTEGER, graph_exec_id INTEGER NOT NULL DEFAULT 0, "
            "graph_node_id INTEGER NOT NULL DEFAULT 0, region_name_id INTEGER, event_id INTEGER, extdata JSONB)");
    db.exec("INSERT INTO kd_302 SELECT id, guid, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, "
            "stream_id, start, \"end\", private_segment_size, group_segment_size, workgroup_size_x, "
            "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, 7, 9, region_name_id, "
            "event_id, extdata FROM rocpd_kernel_dispatch" + u);
    db.exec("DROP VIEW kernels; DROP VIEW counters_collection; DROP VIEW pmc_events; DROP VIEW top_kernels; "
            "DROP VIEW busy; DROP VIEW top; DROP VIEW rocpd_kernel_dispatch;");
    db.exec("DROP TABLE rocpd_kernel_dispatch" + u + "; ALTER TABLE kd_302 RENAME TO rocpd_kernel_dispatch" + u);
    db.exec("ALTER TABLE rocpd_memory_copy" + u + " ADD COLUMN graph_exec_id INTEGER NOT NULL DEFAULT 0");
    db.exec("ALTER TABLE rocpd_memory_copy" + u + " ADD COLUMN graph_node_id INTEGER NOT NULL DEFAULT 0");
    db.exec("CREATE TABLE rocpd_graph_launch" + u + " (id INTEGER PRIMARY KEY, guid TEXT, graph_exec_id INTEGER)");
    // 3.0.3: pmc_event instance columns; 3.0.4: rocpd_hip_event.
    for (const char* c : {"sample_id", "xcc", "shader_engine", "instance"})
      db.exec("ALTER TABLE rocpd_pmc_event" + u + " ADD COLUMN " + c + " INTEGER");
    db.exec("CREATE TABLE rocpd_hip_event" + u + " (id INTEGER PRIMARY KEY, guid TEXT)");
  }
  Trace after;
  read_database(after, path);
  expect_same_trace(before, after);
}

// ---------------------------------------------------------------------------------------------------
// Robustness: a dispatch is never dropped for a missing entity row (§1.9 gotcha 1).

TEST(RocpdStore, KeepsDispatchesWhoseEntityRowsAreMissing) {
  test::TempDir dir;
  std::string path = test::make_fixture_db(dir.path());
  {
    SqlFile db(path);
    std::string u = kSuffix;
    db.exec("DELETE FROM rocpd_info_queue" + u + " WHERE id = 1");
    db.exec("DELETE FROM rocpd_info_thread" + u);
    db.exec("DELETE FROM rocpd_event" + u + " WHERE id IN (SELECT event_id FROM rocpd_kernel_dispatch" + u +
            " WHERE dispatch_id = 2)");
    db.exec("DELETE FROM rocpd_info_kernel_symbol" + u + " WHERE id = 3");
    EXPECT_EQ(db.value("SELECT COUNT(*) FROM kernels"), "0");  // the INNER-JOIN view loses all of them
  }
  Trace t;
  read_database(t, path);
  ASSERT_EQ(t.dispatches.size(), 7u);
  EXPECT_EQ(t.dispatches[0].queue, kNoIndex);  // queue 1 is gone
  EXPECT_NE(t.dispatches[1].queue, kNoIndex);
  EXPECT_EQ(t.dispatches[0].thread, 4242u);    // the tid column still says it
  EXPECT_EQ(t.dispatches[1].correlation_id, 0);  // its event is gone
  EXPECT_EQ(t.dispatches[2].correlation_id, 4);
  EXPECT_EQ(t.kernel_name(t.dispatches[6]), "unknown_kernel_3");
}

// ---------------------------------------------------------------------------------------------------
// CUDA names and argument spellings, stream matched by value.

TEST(RocpdStore, ReadsCudaSyncCallsWithoutExtdata) {
  test::TempDir dir;
  std::string path = dir.file("cuda_results.db");
  {
    rocpd::ProcessRow process;
    process.pid = 77;
    rocpd::Writer w(path, rocpd::NodeRow{}, process);
    EXPECT_TRUE(rocpd::is_uuid_text(w.guid()));
    EXPECT_EQ(w.guid()[14], '7');  // UUID version 7
    rocpd::AgentRow gpu;
    gpu.id = 1;
    gpu.name = "sm_90";
    w.add_agent(gpu);
    w.add_stream(0, "Default Stream");
    w.add_stream(13, "Stream 13");
    w.add_queue(0, "");
    w.add_code_object(1, 1, "");
    w.add_kernel_symbol({5, 1, "_Z1kv", "k()"});
    rocpd::DispatchRow d;
    d.dispatch_id = 1;
    d.agent_id = 1;
    d.kernel_id = 5;
    d.stream_id = 13;
    d.start = 100;
    d.end = 200;
    w.add_dispatch(d);
    auto call = [&](std::string name, std::vector<rocpd::ArgRow> args) {
      rocpd::RegionRow r;
      r.tid = 77;
      r.start = 10;
      r.end = 20;
      r.name = std::move(name);
      r.category = "CUDA_DRIVER_API";
      r.args = std::move(args);
      w.add_region(r);
    };
    call("cuEventRecord_ptsz", {{"CUevent", "hEvent", "0x1f", ""}, {"CUstream", "hStream", "0xd", ""}});
    call("cuStreamWaitEvent_v2", {{"CUstream", "hStream", "13", ""}, {"CUevent", "hEvent", "31", ""}});
    call("cudaStreamSynchronize_ptsz", {{"cudaStream_t", "stream", "(nil)", ""}});
    call("cuCtxSynchronize", {});
    call("cuLaunchKernel", {{"CUstream", "hStream", "0xd", ""}});
    w.finish();
  }
  Trace t = read_databases({path});
  ASSERT_EQ(t.api_calls.size(), 5u);
  ASSERT_EQ(t.sync_ops.size(), 4u);
  Index s13 = find_by_rocpd_id(t.streams, 0, 13), s0 = find_by_rocpd_id(t.streams, 0, 0);
  EXPECT_EQ(t.sync_ops[0].kind, SyncKind::EventRecord);
  EXPECT_EQ(t.sync_ops[0].stream, s13);  // 0xd = 13
  EXPECT_EQ(t.sync_ops[0].event, 0x1fu);
  EXPECT_EQ(t.sync_ops[1].kind, SyncKind::StreamWaitEvent);
  EXPECT_EQ(t.sync_ops[1].stream, s13);
  EXPECT_EQ(t.sync_ops[1].event, 31u);  // decimal 31 = 0x1f: the same event
  EXPECT_EQ(t.sync_ops[2].kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(t.sync_ops[2].stream, s0);  // null stream: the legacy default stream
  EXPECT_EQ(t.sync_ops[3].kind, SyncKind::DeviceSynchronize);
  EXPECT_EQ(t.sync_ops[3].stream, kNoIndex);
}

TEST(SyncCalls, ClassifiesHipAndCudaNames) {
  using rocpd::classify_sync_call;
  for (const char* name : {"hipEventRecord", "hipEventRecordWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags",
                           "cuEventRecord", "cuEventRecord_ptsz", "cudaEventRecord_ptsz", "cuEventRecordWithFlags_ptsz"})
    EXPECT_EQ(classify_sync_call(name), SyncKind::EventRecord) << name;
  for (const char* name : {"hipStreamWaitEvent", "cudaStreamWaitEvent", "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz",
                           "cudaStreamWaitEvent_ptsz"})
    EXPECT_EQ(classify_sync_call(name), SyncKind::StreamWaitEvent) << name;
  for (const char* name : {"hipStreamSynchronize", "cudaStreamSynchronize", "cuStreamSynchronize",
                           "cuStreamSynchronize_ptsz", "hipStreamSynchronize_spt"})
    EXPECT_EQ(classify_sync_call(name), SyncKind::StreamSynchronize) << name;
  for (const char* name : {"hipEventSynchronize", "cudaEventSynchronize", "cuEventSynchronize"})
    EXPECT_EQ(classify_sync_call(name), SyncKind::EventSynchronize) << name;
  for (const char* name : {"hipDeviceSynchronize", "hipCtxSynchronize", "cudaDeviceSynchronize", "cuCtxSynchronize",
                           "cuCtxSynchronize_v2"})
    EXPECT_EQ(classify_sync_call(name), SyncKind::DeviceSynchronize) << name;
  for (const char* name : {"hipLaunchKernel", "cuLaunchKernel", "hipEventCreate", "hipEventQuery", "hipStreamQuery",
                           "_ptsz", "", "hipEventRecordX", "xhipEventRecord"})
    EXPECT_FALSE(classify_sync_call(name).has_value()) << name;
}

TEST(SyncCalls, ParsesHandles) {
  using rocpd::parse_handle;
  EXPECT_EQ(parse_handle("0x1f"), 31u);
  EXPECT_EQ(parse_handle("0X1F"), 31u);
  EXPECT_EQ(parse_handle("31"), 31u);
  EXPECT_EQ(parse_handle(" 0x7f3a00001000 "), 0x7f3a00001000u);
  EXPECT_EQ(parse_handle("0xffffffffffffffff"), UINT64_MAX);
  for (const char* null_handle : {"", "0", "0x0", "(nil)", "nullptr", "NULL", "null"})
    EXPECT_EQ(parse_handle(null_handle), 0u) << null_handle;
  for (const char* bad : {"0x", "abc", "12ab", "-1", "0x1g", "stream"})
    EXPECT_FALSE(parse_handle(bad).has_value()) << bad;
}

TEST(Uuid, Version7Layout) {
  // 48-bit ms 0198a0b12c3d; version nibble 7 + random_a's low 12 bits e4f; variant bits 10 + the low 62
  // bits of random_b: 0x0a9b... -> 0x8a9b...
  EXPECT_EQ(rocpd::format_uuid_v7(0x0198a0b12c3d, 0xe4f, 0x0a9b0c1d2e3f4a5b), kGuid);
  std::string a = rocpd::make_uuid_v7(), b = rocpd::make_uuid_v7();
  EXPECT_TRUE(rocpd::is_uuid_text(a));
  EXPECT_NE(a, b);
  EXPECT_EQ(a[14], '7');
  EXPECT_NE(std::string("89ab").find(a[19]), std::string::npos);
  EXPECT_FALSE(rocpd::is_uuid_text("0198A0B1-2c3d-7e4f-8a9b-0c1d2e3f4a5b"));
  EXPECT_TRUE(rocpd::is_uuid_suffix("0198a0b1_2c3d_7e4f_8a9b_0c1d2e3f4a5b"));
}

}  // namespace
}  // namespace rpl
