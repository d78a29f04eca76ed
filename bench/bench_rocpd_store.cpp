// Times the rocpd writer and reader on a synthetic trace: N dispatches over 4 streams and 50 kernels,
// optionally with one hipLaunchKernel call (with a stream argument) per dispatch.
//   bench_rocpd_store --dispatches 1000000 [--calls] [--keep] [--out /tmp/bench_results.db]
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/core.h>

#include "store/rocpd_reader.hpp"
#include "store/rocpd_writer.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// User + system CPU seconds of this process so far: stable when the machine is shared.
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

long peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocpd store benchmark"};
  int64_t dispatches = 1'000'000;
  bool calls = false, keep = false, read_only = false;
  std::string out = "/tmp/rpl_bench_results.db";
  app.add_option("--dispatches", dispatches, "dispatch rows to write");
  app.add_flag("--calls", calls, "also write one launch call per dispatch");
  app.add_flag("--keep", keep, "keep the database");
  app.add_flag("--read-only", read_only, "only read an existing --out");
  app.add_option("--out", out, "database path");
  CLI11_PARSE(app, argc, argv);

  using namespace rpl::rocpd;
  if (!read_only) {
    auto t0 = std::chrono::steady_clock::now();
    double c0 = cpu_seconds();
    ProcessRow process;
    process.pid = 1234;
    Writer w(out, NodeRow{}, process);
    AgentRow gpu;
    gpu.id = 1;
    gpu.name = "gfx942";
    gpu.extdata_json = R"({"cu_count":304,"simd_per_cu":4,"wave_front_size":64})";
    w.add_agent(gpu);
    w.add_thread({1234, "main", 0, 0});
    for (int s = 0; s < 4; ++s) {
      w.add_stream(s, fmt::format("Stream {}", s));
      w.add_queue(s, fmt::format("Queue {}", s));
    }
    w.add_code_object(1, 1, "");
    for (int k = 1; k <= 50; ++k) w.add_kernel_symbol({k, 1, fmt::format("_Z6kernel{}v.kd", k), fmt::format("kernel{}()", k)});
    DispatchRow d;
    d.tid = 1234;
    d.agent_id = 1;
    d.grid[0] = 1 << 20;
    d.workgroup[0] = 256;
    RegionRow launch;
    launch.tid = 1234;
    launch.name = "hipLaunchKernel";
    launch.category = "HIP_RUNTIME_API_EXT";
    launch.args = {{"hipStream_t", "stream", "0x0", "{}"}};
    for (int64_t i = 0; i < dispatches; ++i) {
      d.dispatch_id = i + 1;
      d.kernel_id = 1 + i % 50;
      d.stream_id = d.queue_id = i % 4;
      d.start = 1'000'000 + i * 1000;
      d.end = d.start + 800;
      d.correlation_id = i + 1;
      w.add_dispatch(d);
      if (calls) {
        launch.start = d.start - 500;
        launch.end = d.start - 100;
        launch.correlation_id = i + 1;
        w.add_region(launch);
      }
    }
    w.finish();
    double write_s = seconds_since(t0);
    fmt::print("write: {} dispatches{} in {:.2f} s wall, {:.2f} s CPU ({:.0f} MB file)\n", dispatches,
               calls ? " + calls" : "", write_s, cpu_seconds() - c0, std::filesystem::file_size(out) / 1e6);
  }

  auto t1 = std::chrono::steady_clock::now();
  double c1 = cpu_seconds();
  rpl::Trace trace = read_databases({out});
  double read_s = seconds_since(t1);
  fmt::print("read:  {} dispatches, {} calls in {:.2f} s wall, {:.2f} s CPU; peak RSS {} MB\n",
             trace.dispatches.size(), trace.api_calls.size(), read_s, cpu_seconds() - c1, peak_rss_mb());
  if (!keep && !read_only) std::filesystem::remove(out);
  return 0;
}
