// The CUDA collector's spill files and their conversion to rocpd, without a GPU: spills are written
// with the same writer the collector uses, converted, and read back with the rocpd reader.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "collectors/nvidia/spill_file.hpp"
#include "collectors/nvidia/spill_to_rocpd.hpp"
#include "model/trace.hpp"
#include "store/rocpd_reader.hpp"
#include "support/errors.hpp"
#include "testing/tmpdir.hpp"

namespace rpl {
namespace {

namespace fs = std::filesystem;
using namespace spill;

// Builds a spill in memory-order and writes it with SpillWriter.
struct SpillBuilder {
  FileHeader header;
  StringChunkBuilder strings;
  std::vector<KernelRecord> kernels;
  std::vector<CopyRecord> copies;
  std::vector<ApiRecord> api;
  std::vector<SyncRecord> syncs;
  std::vector<EventRecordRecord> events;
  std::vector<DeviceRecord> devices;
  std::vector<ContextRecord> contexts;
  std::vector<StreamRecord> streams;
  std::vector<ProcessRecord> process;
  std::vector<FooterRecord> footer;
  std::vector<LaunchEnvRecord> launch_env;

  void write(const std::string& path) {
    SpillWriter w;
    w.open(path, header);
    const ChunkView chunks[] = {strings.chunk(),
                                records_chunk(process.data(), process.size()),
                                records_chunk(devices.data(), devices.size()),
                                records_chunk(contexts.data(), contexts.size()),
                                records_chunk(streams.data(), streams.size()),
                                records_chunk(api.data(), api.size()),
                                records_chunk(syncs.data(), syncs.size()),
                                records_chunk(events.data(), events.size()),
                                records_chunk(copies.data(), copies.size()),
                                records_chunk(kernels.data(), kernels.size()),
                                records_chunk(footer.data(), footer.size()),
                                records_chunk(launch_env.data(), launch_env.size())};
    ASSERT_TRUE(w.append(chunks, std::size(chunks)));
  }
};

KernelRecord kernel(uint32_t corr, uint32_t name, uint32_t stream, int64_t start, int64_t end) {
  KernelRecord k;
  k.correlation_id = corr;
  k.name_id = name;
  k.stream_id = stream;
  k.start = start;
  k.end = end;
  k.grid[0] = 4;
  k.grid[1] = 2;
  k.grid[2] = 1;
  k.block[0] = 128;
  k.block[1] = 1;
  k.block[2] = 1;
  k.static_shared_bytes = 1024;
  k.dynamic_shared_bytes = 512;
  k.local_bytes_per_thread = 16;
  k.registers_per_thread = 40;
  return k;
}

ApiRecord api(uint32_t corr, uint32_t name, int64_t start, int64_t end, uint32_t tid = 4242) {
  ApiRecord a;
  a.correlation_id = corr;
  a.name_id = name;
  a.start = start;
  a.end = end;
  a.thread_id = tid;
  a.domain = uint8_t(ApiDomain::Runtime);
  return a;
}

// String ids used by the synthetic process.
enum : uint32_t {
  kCommand = 1, kHost, kDeviceName, kKernelA, kGraphNode, kLaunch, kEventRecord, kWaitEvent, kGraphLaunch,
  kStreamSync, kDeviceSync, kMemcpy, kDriverLaunch
};

// One process: device 0 (an H100), streams 13 and 14 (non-blocking) plus the null stream 7.
//  corr 10, 11  cudaLaunchKernel -> kernel A on stream 13 (the second by a driver call inside as well)
//  corr 12      cudaEventRecord(ev 5, stream 13), sync id 100
//  corr 13      cudaStreamWaitEvent(stream 14, ev 5), waits for sync id 100
//  corr 14      cudaGraphLaunch on stream 14 -> two graph nodes
//  corr 15      cudaStreamSynchronize(14); corr 16 cudaDeviceSynchronize
//  corr 17      cudaMemcpy HtoD on stream 13, 4096 bytes; corr 18 memset (no API record traced)
//  corr 30      a stream synchronise on 13 whose API call was not traced (region is synthesized)
//  corr 40      a kernel with no timestamps (still running at a forced flush): dropped
SpillBuilder sample_process(int64_t pid) {
  SpillBuilder b;
  b.header.pid = pid;
  b.header.ppid = 1;
  b.header.init_ns = 1'000;
  b.header.clock_offset_ns = 500;
  b.strings.add(kCommand, "./app --flag");
  b.strings.add(kHost, "gpuhost");
  b.strings.add(kDeviceName, "NVIDIA H100 80GB HBM3");
  b.strings.add(kKernelA, "_Z7kernelAPfi");
  b.strings.add(kGraphNode, "_Z9graphNodePi");
  b.strings.add(kLaunch, "cudaLaunchKernel_v7000");
  b.strings.add(kEventRecord, "cudaEventRecord_v3020");
  b.strings.add(kWaitEvent, "cudaStreamWaitEvent_v3020");
  b.strings.add(kGraphLaunch, "cudaGraphLaunch_v10000");
  b.strings.add(kStreamSync, "cudaStreamSynchronize_v3020");
  b.strings.add(kDeviceSync, "cudaDeviceSynchronize_v3020");
  b.strings.add(kMemcpy, "cudaMemcpy_v3020");
  b.strings.add(kDriverLaunch, "cuLaunchKernel");
  b.process.push_back(ProcessRecord{1'000, kCommand, kHost});

  DeviceRecord d;
  d.device_id = 0;
  d.name_id = kDeviceName;
  d.sm_count = 132;
  d.compute_major = 9;
  d.compute_minor = 0;
  d.warp_size = 32;
  d.max_warps_per_sm = 64;
  d.shared_bytes_per_sm = 233472;
  d.core_clock_khz = 1980000;
  b.devices.push_back(d);
  b.contexts.push_back(ContextRecord{1, 0, 7, 0});
  b.streams.push_back(StreamRecord{1, 13, 0, uint32_t(StreamFlag::NonBlocking), 0, 0});
  b.streams.push_back(StreamRecord{1, 14, 0, uint32_t(StreamFlag::NonBlocking), 0, 0});

  b.api.push_back(api(10, kLaunch, 2'000, 2'100));
  b.api.push_back(api(11, kLaunch, 2'200, 2'300));
  ApiRecord inner = api(11, kDriverLaunch, 2'210, 2'290);
  inner.domain = uint8_t(ApiDomain::Driver);
  b.api.push_back(inner);
  b.api.push_back(api(12, kEventRecord, 2'400, 2'450));
  b.api.push_back(api(13, kWaitEvent, 2'500, 2'550));
  b.api.push_back(api(14, kGraphLaunch, 2'600, 2'700, 4243));
  b.api.push_back(api(15, kStreamSync, 2'800, 9'000));
  b.api.push_back(api(16, kDeviceSync, 9'100, 9'200));
  b.api.push_back(api(17, kMemcpy, 1'500, 1'990));

  b.kernels.push_back(kernel(10, kKernelA, 13, 3'000, 4'000));
  b.kernels.push_back(kernel(11, kKernelA, 13, 4'100, 5'000));
  KernelRecord g1 = kernel(14, kGraphNode, 14, 5'100, 6'000);
  g1.graph_node_id = 77;
  g1.graph_id = 3;
  g1.registers_per_thread = 16;
  g1.static_shared_bytes = 0;
  KernelRecord g2 = g1;
  g2.graph_node_id = 78;
  g2.start = 6'100;
  g2.end = 7'000;
  b.kernels.push_back(g1);
  b.kernels.push_back(g2);
  b.kernels.push_back(kernel(40, kKernelA, 13, 0, 0));

  EventRecordRecord ev;
  ev.correlation_id = 12;
  ev.stream_id = 13;
  ev.event_id = 5;
  ev.event_sync_id = 100;
  b.events.push_back(ev);
  SyncRecord wait;
  wait.correlation_id = 13;
  wait.type = uint32_t(SyncType::StreamWaitEvent);
  wait.stream_id = 14;
  wait.event_id = 5;
  wait.event_sync_id = 100;
  wait.start = 2'500;
  wait.end = 2'550;
  b.syncs.push_back(wait);
  SyncRecord ssync;
  ssync.correlation_id = 15;
  ssync.type = uint32_t(SyncType::StreamSynchronize);
  ssync.stream_id = 14;
  ssync.start = 2'800;
  ssync.end = 9'000;
  b.syncs.push_back(ssync);
  SyncRecord dsync;
  dsync.correlation_id = 16;
  dsync.type = uint32_t(SyncType::ContextSynchronize);
  dsync.start = 9'100;
  dsync.end = 9'200;
  b.syncs.push_back(dsync);
  SyncRecord untraced;
  untraced.correlation_id = 30;
  untraced.type = uint32_t(SyncType::StreamSynchronize);
  untraced.stream_id = 13;
  untraced.start = 9'300;
  untraced.end = 9'400;
  b.syncs.push_back(untraced);

  CopyRecord h2d;
  h2d.op = uint8_t(CopyOp::Memcpy);
  h2d.copy_kind = uint8_t(CuptiCopyKind::HtoD);
  h2d.correlation_id = 1017;  // the driver's id; the runtime's is what the API record carries
  h2d.runtime_correlation_id = 17;
  h2d.stream_id = 13;
  h2d.bytes = 4096;
  h2d.start = 1'600;
  h2d.end = 1'900;
  b.copies.push_back(h2d);
  CopyRecord fill;
  fill.op = uint8_t(CopyOp::Memset);
  fill.correlation_id = 18;
  fill.stream_id = 14;
  fill.bytes = 256;
  fill.start = 7'100;
  fill.end = 7'200;
  b.copies.push_back(fill);

  b.footer.push_back(FooterRecord{10'000, 0, 0, 0});
  return b;
}

// --- spill file format ---

TEST(CudaSpillFile, RoundTripsEveryRecordType) {
  test::TempDir dir;
  std::string path = dir.file("1.rplspill");
  SpillBuilder b = sample_process(1);
  b.write(path);
  SpillContents c = read_spill(path);
  EXPECT_EQ(c.header.pid, 1);
  EXPECT_EQ(c.header.clock_offset_ns, 500);
  EXPECT_EQ(std::memcmp(c.header.magic, kMagic, sizeof kMagic), 0);
  EXPECT_FALSE(c.truncated);
  EXPECT_EQ(c.skipped_chunks, 0u);
  EXPECT_EQ(c.string(kKernelA), "_Z7kernelAPfi");
  EXPECT_EQ(c.string(kDriverLaunch), "cuLaunchKernel");
  EXPECT_EQ(c.string(999), "");  // undefined id: empty, not a crash
  ASSERT_EQ(c.kernels.size(), 5u);
  EXPECT_EQ(c.kernels[2].graph_node_id, 77u);
  EXPECT_EQ(c.kernels[0].registers_per_thread, 40);
  EXPECT_EQ(c.api_calls.size(), 9u);
  EXPECT_EQ(c.syncs.size(), 4u);
  EXPECT_EQ(c.event_records.size(), 1u);
  EXPECT_EQ(c.event_records[0].event_sync_id, 100u);
  EXPECT_EQ(c.copies.size(), 2u);
  EXPECT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.streams.size(), 2u);
  EXPECT_EQ(c.contexts.size(), 1u);
  ASSERT_TRUE(c.process.has_value());
  EXPECT_EQ(c.string(c.process->command_id), "./app --flag");
  ASSERT_TRUE(c.footer.has_value());
  EXPECT_EQ(c.footer->end_ns, 10'000);
}

TEST(CudaSpillFile, AppendsAcrossBatchesAndSkipsEmptyChunks) {
  test::TempDir dir;
  std::string path = dir.file("2.rplspill");
  SpillWriter w;
  w.open(path, FileHeader{});
  std::vector<KernelRecord> ks(3, kernel(1, 0, 1, 10, 20));
  // 20 chunks in one call: more than one writev batch (16 chunks each); empty ones are left out.
  std::vector<ChunkView> chunks;
  for (int i = 0; i < 20; ++i) chunks.push_back(i % 2 ? records_chunk(ks.data(), ks.size()) : records_chunk(ks.data(), 0));
  ASSERT_TRUE(w.append(chunks.data(), chunks.size()));
  w.close();
  EXPECT_FALSE(w.append(chunks[1]));  // closed: refused, no crash
  SpillContents c = read_spill(path);
  EXPECT_EQ(c.kernels.size(), 30u);  // 10 non-empty chunks x 3
  // header 64 + 10 x (chunk header 16 + 3 x 104) = 64 + 3280
  EXPECT_EQ(fs::file_size(path), 64u + 10u * (16u + 3u * 104u));
}

TEST(CudaSpillFile, TruncatedSpillKeepsWholeRecords) {
  test::TempDir dir;
  std::string path = dir.file("3.rplspill");
  SpillWriter w;
  w.open(path, FileHeader{});
  std::vector<KernelRecord> ks(10, kernel(1, 0, 1, 10, 20));
  ASSERT_TRUE(w.append_records(ks.data(), ks.size()));
  w.close();
  // 64 + 16 + 1040 = 1120 bytes; cut 50 -> 990 bytes of payload = 9 whole records (936) and a part.
  fs::resize_file(path, 1120 - 50);
  SpillContents c = read_spill(path);
  EXPECT_TRUE(c.truncated);
  EXPECT_EQ(c.kernels.size(), 9u);
  EXPECT_FALSE(c.footer.has_value());
  // A cut inside a chunk header: nothing of that chunk, still truncated.
  fs::resize_file(path, 64 + 10);
  c = read_spill(path);
  EXPECT_TRUE(c.truncated);
  EXPECT_TRUE(c.kernels.empty());
}

TEST(CudaSpillFile, SkipsUnknownChunkTypes) {
  test::TempDir dir;
  std::string path = dir.file("4.rplspill");
  SpillWriter w;
  w.open(path, FileHeader{});
  uint64_t payload[3] = {1, 2, 3};
  ASSERT_TRUE(w.append(ChunkView{static_cast<ChunkType>(999), 3, payload, sizeof payload}));
  FooterRecord f{5, 0, 0, 0};
  ASSERT_TRUE(w.append_records(&f, 1));
  w.close();
  SpillContents c = read_spill(path);
  EXPECT_EQ(c.skipped_chunks, 1u);
  ASSERT_TRUE(c.footer.has_value());
  EXPECT_EQ(c.footer->end_ns, 5);
}

TEST(CudaSpillFile, RejectsWhatIsNotASpill) {
  test::TempDir dir;
  EXPECT_THROW(
      {
        try {
          read_spill(dir.file("missing.rplspill"));
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), ExitCode::InputMissing);
          EXPECT_NE(std::string(e.what()).find("missing.rplspill"), std::string::npos);
          throw;
        }
      },
      Error);
  std::string junk = dir.file("junk.rplspill");
  std::ofstream(junk) << "SQLite format 3 and more bytes to fill a header........................";
  try {
    read_spill(junk);
    FAIL() << "junk accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputCorrupt);
    EXPECT_NE(std::string(e.what()).find("bad magic"), std::string::npos);
  }
  // A short file (shorter than the header) is no spill either.
  std::string empty = dir.file("empty.rplspill");
  std::ofstream(empty).close();
  EXPECT_THROW(read_spill(empty), Error);
}

TEST(CudaSpillFile, RejectsOtherVersionsAndInconsistentChunks) {
  test::TempDir dir;
  std::string path = dir.file("5.rplspill");
  {
    SpillWriter w;
    w.open(path, FileHeader{});
  }
  // Patch the version field (offset 8).
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    uint32_t v = kFormatVersion + 1;
    f.write(reinterpret_cast<const char*>(&v), sizeof v);
  }
  try {
    read_spill(path);
    FAIL() << "future version accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputCorrupt);
    EXPECT_NE(std::string(e.what()).find("version"), std::string::npos);
  }
  // A kernel chunk whose byte count does not match count x record size.
  SpillWriter w;
  w.open(path, FileHeader{});
  KernelRecord k{};
  ASSERT_TRUE(w.append(ChunkView{ChunkType::Kernel, 2, &k, sizeof k}));
  w.close();
  try {
    read_spill(path);
    FAIL() << "inconsistent chunk accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::InputCorrupt);
  }
}

// --- names ---

TEST(CudaApiNames, StripsCuptiSuffixes) {
  using collectors::normalize_cuda_api_name;
  EXPECT_EQ(normalize_cuda_api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(normalize_cuda_api_name("cudaStreamSynchronize_ptsz_v7000"), "cudaStreamSynchronize");
  EXPECT_EQ(normalize_cuda_api_name("cudaEventRecord_ptsz"), "cudaEventRecord");
  EXPECT_EQ(normalize_cuda_api_name("cuMemcpyHtoDAsync_v2_ptds"), "cuMemcpyHtoDAsync");
  EXPECT_EQ(normalize_cuda_api_name("cuCtxSynchronize_v2"), "cuCtxSynchronize");
  EXPECT_EQ(normalize_cuda_api_name("__cudaLaunchKernel_v13000"), "cudaLaunchKernel");
  EXPECT_EQ(normalize_cuda_api_name("cuLaunchKernel"), "cuLaunchKernel");
  // "_v" followed by something other than digits is part of the name.
  EXPECT_EQ(normalize_cuda_api_name("cudaFoo_vbar"), "cudaFoo_vbar");
  EXPECT_EQ(normalize_cuda_api_name("cudaFoo_v"), "cudaFoo_v");
  EXPECT_EQ(normalize_cuda_api_name(""), "");
}

TEST(CudaApiNames, DependencyApisAreLaunchesCopiesAndSyncs) {
  using collectors::is_cuda_dependency_api;
  for (const char* yes : {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaGraphLaunch", "cudaMemcpyAsync",
                          "cudaMemsetAsync", "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize",
                          "cudaEventRecord", "cudaEventRecordWithFlags", "cudaStreamWaitEvent", "cuLaunchKernel",
                          "cuLaunchKernelEx", "cuMemcpyHtoDAsync", "cuMemsetD32Async", "cuCtxSynchronize",
                          "cuStreamWaitEvent", "cuEventRecord"})
    EXPECT_TRUE(is_cuda_dependency_api(yes)) << yes;
  for (const char* no : {"cudaMalloc", "cudaFree", "cudaGetDevice", "cudaEventCreate", "cudaStreamCreate",
                         "cudaEventQuery", "cudaGetLastError", "cuCtxGetCurrent", "cuMemAlloc", "cudaMemPrefetchAsync",
                         "cudaEventRecordX", ""})
    EXPECT_FALSE(is_cuda_dependency_api(no)) << no;
}

TEST(CudaSpillPaths, PerHostPerPid) {
  EXPECT_EQ(collectors::spill_path_for("/tmp/run", "node1", 4242), "/tmp/run/node1/4242.rplspill");
  EXPECT_EQ(collectors::spill_path_for("", "node1", 7), "./node1/7.rplspill");
}

// --- conversion ---

class CudaSpillConversion : public ::testing::Test {
 protected:
  void convert_sample() {
    spill_ = dir_.file("4242.rplspill");
    sample_process(4242).write(spill_);
    db_ = collectors::convert_spill(spill_);
    rocpd::read_database(trace_, db_);
  }
  const std::string& str(Index i) const { return trace_.strings.at(i); }

  test::TempDir dir_;
  std::string spill_, db_;
  Trace trace_;
};

TEST_F(CudaSpillConversion, WritesOneDatabasePerProcessAndRemovesTheSpill) {
  convert_sample();
  EXPECT_EQ(db_, dir_.file("4242_results.db"));
  EXPECT_TRUE(fs::exists(db_));
  EXPECT_FALSE(fs::exists(spill_));
  ASSERT_EQ(trace_.processes.size(), 1u);
  const Process& p = trace_.processes[0];
  EXPECT_EQ(p.pid, 4242);
  EXPECT_EQ(p.ppid, 1);
  EXPECT_EQ(p.command, "./app --flag");
  EXPECT_EQ(p.hostname, "gpuhost");
  EXPECT_EQ(p.start, 1'500);  // 1000 + offset 500
  EXPECT_EQ(p.end, 10'500);   // footer 10000 + 500
}

TEST_F(CudaSpillConversion, MapsDispatchesTheHsaWay) {
  convert_sample();
  // The zero-timestamp kernel (corr 40) is dropped: 4 dispatches.
  ASSERT_EQ(trace_.dispatches.size(), 4u);
  const Dispatch& d = trace_.dispatches[0];
  EXPECT_EQ(d.start, 3'500);  // 3000 + 500
  EXPECT_EQ(d.end, 4'500);
  EXPECT_EQ(d.correlation_id, 10);
  EXPECT_EQ(d.thread, 4242u);
  // grid (4,2,1) blocks of (128,1,1) threads -> (512,2,1) work-items
  EXPECT_EQ(d.grid[0], 512u);
  EXPECT_EQ(d.grid[1], 2u);
  EXPECT_EQ(d.grid[2], 1u);
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(d.lds_bytes, 1536u);   // static 1024 + dynamic 512
  EXPECT_EQ(d.scratch_bytes, 16u);  // local memory per thread
  EXPECT_EQ(trace_.streams[d.stream].rocpd_id, 13);
  EXPECT_EQ(trace_.queues[d.queue].rocpd_id, 13);
  EXPECT_EQ(trace_.streams[d.stream].name, "Stream 13 (non-blocking)");
  const KernelSymbol& s = trace_.symbols[d.symbol];
  EXPECT_EQ(str(s.mangled_name), "_Z7kernelAPfi");
  EXPECT_EQ(str(s.display_name), "kernelA(float*, int)");
  EXPECT_EQ(s.arch_vgpr_count, 40u);
  EXPECT_EQ(s.static_lds_bytes, 1024u);
  EXPECT_EQ(s.private_segment_bytes, 16u);
  // Both kernelA launches share one symbol; the graph nodes (other resources) have another.
  EXPECT_EQ(trace_.dispatches[1].symbol, d.symbol);
  EXPECT_NE(trace_.dispatches[2].symbol, d.symbol);
  EXPECT_EQ(trace_.symbols.size(), 2u);
}

TEST_F(CudaSpillConversion, KeepsGraphNodesAsSeparateDispatches) {
  convert_sample();
  int graph = 0;
  for (const Dispatch& d : trace_.dispatches)
    if (trace_.kernel_name(d) == "graphNode(int*)") {
      ++graph;
      EXPECT_EQ(d.correlation_id, 14);  // the cudaGraphLaunch
      EXPECT_EQ(d.thread, 4243u);       // launched from another thread
      EXPECT_EQ(trace_.streams[d.stream].rocpd_id, 14);
    }
  EXPECT_EQ(graph, 2);
}

TEST_F(CudaSpillConversion, DescribesTheGpuAsAnAgent) {
  convert_sample();
  const Agent* gpu = nullptr;
  const Agent* cpu = nullptr;
  for (const Agent& a : trace_.agents) (a.is_gpu ? gpu : cpu) = &a;
  ASSERT_NE(gpu, nullptr);
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(gpu->rocpd_id, 1);  // device 0 -> agent 1; the CPU is agent 0
  EXPECT_EQ(cpu->rocpd_id, 0);
  EXPECT_EQ(gpu->name, "sm_90");
  EXPECT_EQ(gpu->product_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu->vendor_name, "NVIDIA");
  EXPECT_EQ(gpu->cu_count, 132u);
  EXPECT_EQ(gpu->wave_front_size, 32u);
  EXPECT_EQ(gpu->simd_per_cu, 4u);
  EXPECT_EQ(gpu->max_waves_per_simd, 16u);  // 64 warps per SM / 4 partitions
  EXPECT_EQ(gpu->lds_size_kb, 228u);         // 233472 / 1024
  EXPECT_EQ(gpu->max_clock_mhz, 1980u);
  EXPECT_EQ(trace_.dispatches[0].agent, static_cast<Index>(gpu - trace_.agents.data()));
}

TEST_F(CudaSpillConversion, MapsCopiesAndFills) {
  convert_sample();
  ASSERT_EQ(trace_.copies.size(), 2u);
  const MemoryCopy* h2d = nullptr;
  const MemoryCopy* fill = nullptr;
  for (const MemoryCopy& c : trace_.copies) (str(c.kind) == "MEMORY_FILL" ? fill : h2d) = &c;
  ASSERT_NE(h2d, nullptr);
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(str(h2d->kind), "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(h2d->bytes, 4096u);
  EXPECT_EQ(h2d->correlation_id, 17);  // the runtime's id: the one its API call carries
  EXPECT_EQ(h2d->start, 2'100);
  EXPECT_FALSE(trace_.agents[h2d->src_agent].is_gpu);
  EXPECT_TRUE(trace_.agents[h2d->dst_agent].is_gpu);
  EXPECT_EQ(fill->bytes, 256u);
  EXPECT_EQ(fill->correlation_id, 18);
  EXPECT_TRUE(trace_.agents[fill->src_agent].is_gpu);
}

TEST_F(CudaSpillConversion, TurnsSyncRecordsIntoDependencyOps) {
  convert_sample();
  auto find = [&](SyncKind kind, int64_t corr) -> const SyncOp* {
    for (const SyncOp& s : trace_.sync_ops)
      if (s.kind == kind && s.correlation_id == corr) return &s;
    return nullptr;
  };
  const SyncOp* record = find(SyncKind::EventRecord, 12);
  const SyncOp* wait = find(SyncKind::StreamWaitEvent, 13);
  ASSERT_NE(record, nullptr);
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(record->event, 100u);  // CUPTI's sync id: unique per record
  EXPECT_EQ(wait->event, 100u);
  EXPECT_EQ(trace_.streams[record->stream].rocpd_id, 13);
  EXPECT_EQ(trace_.streams[wait->stream].rocpd_id, 14);
  const SyncOp* ssync = find(SyncKind::StreamSynchronize, 15);
  ASSERT_NE(ssync, nullptr);
  EXPECT_EQ(trace_.streams[ssync->stream].rocpd_id, 14);
  EXPECT_NE(find(SyncKind::DeviceSynchronize, 16), nullptr);
  // The stream synchronise whose API call was not traced still becomes a dependency.
  const SyncOp* synthesized = find(SyncKind::StreamSynchronize, 30);
  ASSERT_NE(synthesized, nullptr);
  EXPECT_EQ(trace_.streams[synthesized->stream].rocpd_id, 13);
  // The driver call inside cudaLaunchKernel (corr 11) adds no second launch op.
  EXPECT_EQ(trace_.sync_ops.size(), 5u);
}

TEST_F(CudaSpillConversion, NamesApiCallsWithoutVersionSuffixes) {
  convert_sample();
  std::vector<std::string> names;
  for (const ApiCall& a : trace_.api_calls) names.push_back(str(a.name));
  EXPECT_EQ(std::count(names.begin(), names.end(), "cudaLaunchKernel"), 2);
  EXPECT_EQ(std::count(names.begin(), names.end(), "cuLaunchKernel"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "cudaGraphLaunch"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "cudaLaunchKernel_v7000"), 0);
  for (const ApiCall& a : trace_.api_calls) {
    std::string cat = str(a.category);
    EXPECT_TRUE(cat == "CUDA_RUNTIME_API" || cat == "CUDA_DRIVER_API") << cat;
  }
}

TEST_F(CudaSpillConversion, UsesEventIdsWhenCuptiGaveNoSyncIds) {
  spill_ = dir_.file("77.rplspill");
  SpillBuilder b = sample_process(77);
  b.events[0].event_sync_id = kInvalidId64;
  b.syncs[0].event_sync_id = kInvalidId64;
  b.write(spill_);
  db_ = collectors::convert_spill(spill_, {dir_.file("custom.db"), false});
  EXPECT_EQ(db_, dir_.file("custom.db"));
  EXPECT_TRUE(fs::exists(spill_));  // remove_spill = false
  rocpd::read_database(trace_, db_);
  int matched = 0;
  for (const SyncOp& s : trace_.sync_ops)
    if (s.kind == SyncKind::EventRecord || s.kind == SyncKind::StreamWaitEvent) {
      EXPECT_EQ(s.event, 5u);  // the event id
      ++matched;
    }
  EXPECT_EQ(matched, 2);
}

TEST_F(CudaSpillConversion, ConvertsACrashedProcessAsFarAsItGot) {
  spill_ = dir_.file("88.rplspill");
  SpillBuilder b = sample_process(88);
  b.footer.clear();  // died of a signal before the footer
  b.write(spill_);
  fs::resize_file(spill_, fs::file_size(spill_) - 60);  // and in the middle of the last kernel chunk
  db_ = collectors::convert_spill(spill_);
  rocpd::read_database(trace_, db_);
  // The kernel chunk (5 x 104 = 520 bytes, written last) lost 60 bytes: 460 bytes hold 4 whole records
  // (corr 10, 11 and the two graph nodes); the cut 5th was corr 40, which has no timestamps anyway.
  EXPECT_EQ(trace_.dispatches.size(), 4u);
  // No footer: the process ends at the last timestamp seen (the untraced sync ending at 9400), +500.
  EXPECT_EQ(trace_.processes[0].end, 9'900);
}

TEST(CudaLeftoverSpills, ConvertsSpillsOfEndedProcessesOnly) {
  test::TempDir dir;
  fs::create_directories(dir.path() / "host");
  // A process that has ended for certain: our own child, already reaped.
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  SpillBuilder crashed = sample_process(child);
  crashed.footer.clear();
  crashed.write((dir.path() / "host" / fmt::format("{}.rplspill", child)).string());
  SpillBuilder clean = sample_process(1234567);
  clean.write((dir.path() / "host" / "1234567.rplspill").string());
  // Still running and without a footer (our parent is alive): left alone.
  SpillBuilder running = sample_process(getppid());
  running.footer.clear();
  std::string running_path = (dir.path() / "host" / fmt::format("{}.rplspill", getppid())).string();
  running.write(running_path);
  // Not a spill at all: skipped with a warning, no exception.
  std::ofstream((dir.path() / "host" / "junk.rplspill").string()) << "junk";

  std::vector<std::string> dbs = collectors::convert_leftover_spills(dir.path().string());
  ASSERT_EQ(dbs.size(), 2u);
  EXPECT_TRUE(fs::exists(dir.path() / "host" / fmt::format("{}_results.db", child)));
  EXPECT_TRUE(fs::exists(dir.path() / "host" / "1234567_results.db"));
  EXPECT_TRUE(fs::exists(running_path));
  EXPECT_FALSE(fs::exists(dir.path() / "host" / "1234567.rplspill"));
}

}  // namespace
}  // namespace rpl

namespace rpl {
namespace {

// NVTX ranges (issue 13): a Marker-domain API record becomes a rocpd region in the MARKER_CORE_API category
// named by the range's message, as rocprofv3 stores ROCTx ranges; it takes no part in correlation.
TEST(CudaSpillMarkers, NvtxRangesBecomeMarkerRegions) {
  test::TempDir dir;
  const std::string path = dir.file("4343.rplspill");
  SpillBuilder b = sample_process(4343);
  constexpr uint32_t kStep = 90;
  b.strings.add(kStep, "train_step");
  for (int i = 0; i < 2; ++i) {
    ApiRecord m;
    m.domain = uint8_t(ApiDomain::Marker);
    m.name_id = kStep;
    m.start = 1'800 + 3'000 * i;
    m.end = 2'650 + 3'000 * i;
    m.thread_id = 4343;
    b.api.push_back(m);
  }
  b.write(path);
  const std::string db = collectors::convert_spill(path);
  Trace trace;
  rocpd::read_database(trace, db);
  std::size_t markers = 0;
  for (const ApiCall& a : trace.api_calls) {
    if (trace.strings.at(a.category) != "MARKER_CORE_API") continue;
    ++markers;
    EXPECT_EQ(trace.strings.at(a.name), "train_step");
    EXPECT_EQ(a.end - a.start, 850);
    EXPECT_EQ(a.thread, 4343u);
  }
  EXPECT_EQ(markers, 2u);
  // The launches still pair with their kernels (markers carry correlation id 0 and are left out of it).
  EXPECT_EQ(trace.dispatches.size(), 4u);
  EXPECT_EQ(trace.dispatches[0].correlation_id, 10);
}

// Distributed jobs (issue 18): the launcher's rank, recorded at start-up, reaches rocpd_info_process.extdata,
// and the GPU's UUID the agent's extdata.
TEST(CudaSpillRanks, LaunchEnvironmentBecomesTheProcessRank) {
  test::TempDir dir;
  const std::string path = dir.file("4344.rplspill");
  SpillBuilder b = sample_process(4344);
  constexpr uint32_t kRankJson = 91;
  b.strings.add(kRankJson, R"({"rank":3,"local_rank":1,"world_size":8,"rank_source":"SLURM_PROCID"})");
  b.launch_env.push_back(LaunchEnvRecord{kRankJson, 0});
  for (auto& d : b.devices)
    for (int i = 0; i < 16; ++i) d.uuid[i] = static_cast<uint8_t>(0xa0 + i);
  b.write(path);
  Trace trace;
  rocpd::read_database(trace, collectors::convert_spill(path));
  ASSERT_EQ(trace.processes.size(), 1u);
  EXPECT_EQ(trace.processes[0].rank.rank, 3);
  EXPECT_EQ(trace.processes[0].rank.local_rank, 1);
  EXPECT_EQ(trace.processes[0].rank.world_size, 8);
  EXPECT_EQ(trace.processes[0].rank.source, "SLURM_PROCID");
  bool found = false;
  for (const Agent& a : trace.agents)
    if (a.is_gpu) found = a.uuid == "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf";
  EXPECT_TRUE(found);

  // Without the chunk (an older collector) the rank is unknown.
  const std::string old_path = dir.file("4345.rplspill");
  sample_process(4345).write(old_path);
  Trace old;
  rocpd::read_database(old, collectors::convert_spill(old_path));
  EXPECT_FALSE(old.processes[0].rank.known());
}

}  // namespace
}  // namespace rpl
