// Generates large, schema-faithful rocpd databases for benchmarks and examples: N dispatches over S streams
// of one or more processes, with cross-stream event dependencies (hipEventRecord / hipStreamWaitEvent
// regions with their args, as rocprofv3 writes them), host stream and device synchronisations, and memory
// copies.
//
// The timeline is simulated so that it is consistent with the recorded dependencies: a stream waiting on
// an event does not start before the recorded work has finished.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "store/rocpd_writer.hpp"
#include "support/errors.hpp"

namespace {

struct Spec {
  uint64_t dispatches = 100000;
  unsigned streams = 4;
  unsigned processes = 1;
  unsigned event_every = 50;   // every K dispatches on a stream: record an event, another stream waits on it
  unsigned sync_every = 5000;  // every K dispatches overall: hipStreamSynchronize on one stream
  unsigned device_sync_every = 0;  // every K dispatches overall: hipDeviceSynchronize (0: never)
  unsigned copy_every = 1000;  // every K dispatches overall: a host-to-device copy
  bool launch_regions = false; // also write a hipLaunchKernel region per dispatch (HIP API trace)
  uint64_t seed = 1;
  std::string output = "trace";
};

struct KernelKind {
  const char* mangled;
  const char* display;
  double mean_ns;
  uint32_t vgpr, agpr, sgpr, lds, block;
};

// A small zoo of kernels with distinct resource profiles (so occupancy has limiters to find).
constexpr KernelKind kKernels[] = {
    {"_Z4gemmPKfS0_Pfiii", "gemm(float const*, float const*, float*, int, int, int)", 80000, 128, 64, 48, 32768, 256},
    {"_Z7softmaxPfi", "softmax(float*, int)", 12000, 32, 0, 24, 1024, 256},
    {"_Z9layernormPKfPfi", "layernorm(float const*, float*, int)", 9000, 40, 0, 30, 2048, 512},
    {"_Z4geluPfi", "gelu(float*, int)", 5000, 16, 0, 16, 0, 256},
    {"_Z9attentionPKfS0_S0_Pfi", "attention(float const*, float const*, float const*, float*, int)", 60000, 96, 32,
     40, 65536, 256},
    {"__amd_rocclr_fillBufferAligned", "__amd_rocclr_fillBufferAligned", 2000, 16, 0, 16, 0, 256},
};

void generate_process(const Spec& spec, unsigned process_index, uint64_t dispatches) {
  std::mt19937_64 rng(spec.seed * 7919 + process_index);
  std::uniform_real_distribution<double> jitter(0.9, 1.1);
  std::uniform_int_distribution<int> gap_ns(1000, 6000);

  const int64_t pid = 40000 + process_index;
  const int64_t tid = pid;
  const int64_t gpu_agent = 2 + process_index % 8;
  const std::string path = spec.processes == 1 ? spec.output + ".db" : fmt::format("{}_{}.db", spec.output, process_index);

  rpl::rocpd::NodeRow node;
  node.id = 3735928559;
  node.machine_id = "bench-machine";
  node.hostname = "bench-host";
  rpl::rocpd::ProcessRow proc;
  proc.pid = pid;
  proc.ppid = 1;
  proc.command = "./bench_app";
  rpl::rocpd::Writer w(path, node, proc);
  w.add_thread({tid, "main", 0, 0});

  rpl::rocpd::AgentRow cpu;
  cpu.id = 0;
  cpu.is_gpu = false;
  cpu.name = "AMD EPYC 9454";
  cpu.product_name = "AMD EPYC 9454";
  cpu.vendor_name = "CPU";
  w.add_agent(cpu);
  rpl::rocpd::AgentRow gpu;
  gpu.id = gpu_agent;
  gpu.absolute_index = gpu_agent;
  gpu.logical_index = 1;
  gpu.name = "gfx942";
  gpu.model_name = "aqua_vanjaram";
  gpu.vendor_name = "AMD";
  gpu.product_name = "AMD Instinct MI300X";
  gpu.extdata_json =
      R"({"cu_count":304,"simd_per_cu":4,"max_waves_per_simd":8,"wave_front_size":64,"num_xcc":8,)"
      R"("max_engine_clk_fcompute":2100,"lds_size_in_kb":64,"gfx_target_version":90402})";
  w.add_agent(gpu);

  w.add_stream(0, "Default Stream");
  w.add_queue(0, "Default Queue");
  for (unsigned s = 1; s <= spec.streams; ++s) {
    w.add_stream(s, fmt::format("Stream {}", s));
    w.add_queue(s, fmt::format("Queue {}", s));
  }
  w.add_code_object(1, gpu_agent, "file:///bench_app#offset=8192&size=65536");
  int64_t kernel_id = 1;
  for (const auto& k : kKernels) {
    rpl::rocpd::KernelSymbolRow sym;
    sym.id = kernel_id++;
    sym.code_object_id = 1;
    sym.kernel_name = std::string(k.mangled) + ".kd";
    sym.display_name = k.display;
    sym.kernarg_segment_size = 64;
    sym.group_segment_size = k.lds;
    sym.sgpr_count = k.sgpr;
    sym.arch_vgpr_count = k.vgpr;
    sym.accum_vgpr_count = k.agpr;
    w.add_kernel_symbol(sym);
  }

  // Host submission proceeds in round-robin over streams; correlation ids follow submission order.
  std::vector<int64_t> stream_ready(spec.streams + 1, 1'000'000'000);
  std::vector<int64_t> stream_last_end(spec.streams + 1, 0);
  std::vector<uint64_t> per_stream_count(spec.streams + 1, 0);
  std::vector<int64_t> pending_wait(spec.streams + 1, 0);  // ready time imposed by a waited event
  int64_t host_time = 999'000'000;
  int64_t corr = 1;
  uint64_t event_handle = 0x7f0000000000;
  int64_t copy_id = 1;

  auto region = [&](const char* name, std::vector<rpl::rocpd::ArgRow> args) {
    rpl::rocpd::RegionRow r;
    r.tid = tid;
    r.start = host_time;
    r.end = host_time + 800;
    host_time += 1000;
    r.name = name;
    r.category = "HIP_RUNTIME_API_EXT";
    r.correlation_id = corr++;
    r.args = std::move(args);
    w.add_region(r);
  };
  auto stream_arg = [](unsigned s) {
    return rpl::rocpd::ArgRow{"hipStream_t", "stream", fmt::format("0x{:x}", 0x5000 + s),
                              fmt::format(R"({{"stream_id":{}}})", s)};
  };

  for (uint64_t i = 0; i < dispatches; ++i) {
    unsigned s = 1 + static_cast<unsigned>(i % spec.streams);
    const KernelKind& k = kKernels[(i / spec.streams + s) % std::size(kKernels)];
    rpl::rocpd::DispatchRow d;
    d.dispatch_id = static_cast<int64_t>(i + 1);
    d.tid = tid;
    d.agent_id = gpu_agent;
    d.kernel_id = static_cast<int64_t>(&k - kKernels) + 1;
    d.queue_id = s;
    d.stream_id = s;
    int64_t start = std::max({stream_ready[s], pending_wait[s], host_time + 2000}) + gap_ns(rng);
    pending_wait[s] = 0;
    d.start = start;
    d.end = start + static_cast<int64_t>(k.mean_ns * jitter(rng));
    d.group_segment_size = k.lds;
    d.workgroup[0] = k.block;
    d.grid[0] = k.block * 1024;
    if (spec.launch_regions) region("hipLaunchKernel", {stream_arg(s)});
    d.correlation_id = spec.launch_regions ? corr - 1 : corr++;
    host_time += 500;
    w.add_dispatch(d);
    stream_ready[s] = d.end;
    stream_last_end[s] = d.end;

    // Cross-stream dependency: record on s, the next stream waits on it.
    if (spec.streams > 1 && ++per_stream_count[s] % spec.event_every == 0) {
      unsigned waiter = 1 + s % spec.streams;
      uint64_t ev = event_handle++;
      std::string ev_text = fmt::format("0x{:x}", ev);
      region("hipEventRecord", {{"hipEvent_t", "event", ev_text, "{}"}, stream_arg(s)});
      region("hipStreamWaitEvent", {stream_arg(waiter), {"hipEvent_t", "event", ev_text, "{}"},
                                    {"unsigned int", "flags", "0", "{}"}});
      pending_wait[waiter] = std::max(pending_wait[waiter], stream_last_end[s]);
    }
    if (spec.sync_every && (i + 1) % spec.sync_every == 0) {
      // The host blocks until stream s drains; everything submitted later starts after that.
      host_time = std::max(host_time, stream_last_end[s]);
      region("hipStreamSynchronize", {stream_arg(s)});
    }
    if (spec.device_sync_every && (i + 1) % spec.device_sync_every == 0) {
      // The host blocks until every stream drains.
      host_time = std::max(host_time, *std::max_element(stream_last_end.begin(), stream_last_end.end()));
      region("hipDeviceSynchronize", {});
    }
    if (spec.copy_every && (i + 1) % spec.copy_every == 0) {
      rpl::rocpd::MemoryCopyRow c;
      c.id = copy_id++;
      c.tid = tid;
      c.kind = "MEMORY_COPY_HOST_TO_DEVICE";
      c.src_agent_id = 0;
      c.dst_agent_id = gpu_agent;
      c.size = 4 << 20;
      c.stream_id = s;
      c.start = std::max(stream_ready[s], host_time) + gap_ns(rng);
      c.end = c.start + 90000;
      c.correlation_id = corr++;
      w.add_memory_copy(c);
      stream_ready[s] = c.end;
      stream_last_end[s] = c.end;
    }
  }
  w.finish();
  fmt::print(stderr, "wrote {} ({} dispatches)\n", path, dispatches);
}

}  // namespace

int main(int argc, char** argv) {
  Spec spec;
  CLI::App app{"Generate schema-faithful rocpd databases for benchmarks"};
  app.add_option("-n,--dispatches", spec.dispatches, "dispatches in total (split over processes)");
  app.add_option("-s,--streams", spec.streams, "streams per process")->check(CLI::Range(1u, 100000u));
  app.add_option("-p,--processes", spec.processes, "processes (one database each)")->check(CLI::Range(1u, 64u));
  app.add_option("--event-every", spec.event_every, "record/wait an event every K dispatches per stream")
      ->check(CLI::PositiveNumber);
  app.add_option("--sync-every", spec.sync_every, "host stream synchronisation every K dispatches (0: never)");
  app.add_option("--device-sync-every", spec.device_sync_every,
                 "hipDeviceSynchronize every K dispatches (0: never); with -s 10000 -n 20000 --device-sync-every 2: "
                 "10,000 streams x 10,000 device syncs");
  app.add_option("--copy-every", spec.copy_every, "a memory copy every K dispatches (0: never)");
  app.add_flag("--launch-regions", spec.launch_regions, "write a hipLaunchKernel region per dispatch");
  app.add_option("--seed", spec.seed);
  app.add_option("-o,--output", spec.output, "output path without .db (with several processes: _<i>.db)");
  CLI11_PARSE(app, argc, argv);
  try {
    for (unsigned p = 0; p < spec.processes; ++p)
      generate_process(spec, p, spec.dispatches / spec.processes + (p < spec.dispatches % spec.processes ? 1 : 0));
  } catch (const rpl::Error& e) {
    fmt::print(stderr, "gen_rocpd: {}\n", e.what());
    return rpl::to_int(e.code());
  }
  return 0;
}
