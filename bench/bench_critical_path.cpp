// Times the critical-path analysis and a what-if run over a synthetic trace held in memory:
// N dispatches round-robin over S streams of one process, back to back with small gaps, an event
// record/wait pair from stream s to stream s+1 every `--event-every` dispatches, and a device
// synchronize every `--sync-every` dispatches.
//   bench_critical_path --dispatches 10000000 --streams 4
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>

#include "analysis/critical_path.hpp"
#include "support/log.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// User + system CPU seconds of this process: less sensitive than wall time to a busy machine.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

rpl::Trace make_trace(std::size_t dispatches, uint32_t streams, std::size_t event_every, std::size_t sync_every) {
  using namespace rpl;
  Trace t;
  t.processes.push_back(Process{});
  Agent gpu;
  gpu.process = 0;
  gpu.is_gpu = true;
  t.agents.push_back(gpu);
  for (uint32_t s = 0; s < streams; ++s) {
    t.streams.push_back(Stream{0, s, ""});
    t.queues.push_back(Queue{0, s, ""});
  }
  const char* names[] = {"gemm_kernel", "softmax_kernel", "layernorm_kernel", "elementwise_add"};
  for (const char* n : names) {
    KernelSymbol k;
    k.process = 0;
    k.display_name = k.mangled_name = t.strings.intern(n);
    t.symbols.push_back(k);
  }
  t.dispatches.reserve(dispatches);
  std::vector<TimeNs> clock(streams, 0);
  int64_t corr = 1;
  for (std::size_t i = 0; i < dispatches; ++i) {
    const uint32_t s = static_cast<uint32_t>(i % streams);
    Dispatch d;
    d.start = clock[s] + static_cast<TimeNs>(i % 7);
    d.end = d.start + 1000 + static_cast<TimeNs>((i * 2654435761u) % 4000);
    clock[s] = d.end;
    d.correlation_id = corr++;
    d.dispatch_id = static_cast<int64_t>(i + 1);
    d.process = 0;
    d.agent = 0;
    d.stream = d.queue = s;
    d.symbol = static_cast<Index>((i / streams) % 4);
    d.thread = 1;
    t.dispatches.push_back(d);
    if (event_every && (i / streams) % event_every == event_every - 1 && s + 1 < streams) {
      SyncOp rec;
      rec.kind = SyncKind::EventRecord;
      rec.process = 0;
      rec.stream = s;
      rec.event = s + 1;
      rec.correlation_id = corr++;
      t.sync_ops.push_back(rec);
      SyncOp wait = rec;
      wait.kind = SyncKind::StreamWaitEvent;
      wait.stream = s + 1;
      wait.correlation_id = corr++;
      t.sync_ops.push_back(wait);
    }
    if (sync_every && i % sync_every == sync_every - 1) {
      SyncOp sync;
      sync.kind = SyncKind::DeviceSynchronize;
      sync.process = 0;
      sync.thread = 1;
      sync.correlation_id = corr++;
      t.sync_ops.push_back(sync);
      for (uint32_t k = 0; k < streams; ++k) clock[k] = std::max(clock[k], d.end + 5000);
    }
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Time the critical-path analysis on a synthetic trace"};
  std::size_t dispatches = 1'000'000, event_every = 64, sync_every = 10'000;
  uint32_t streams = 4;
  bool infer = false;
  app.add_option("--dispatches", dispatches, "number of dispatches");
  app.add_option("--streams", streams, "number of streams")->check(CLI::Range(1u, 100000u));
  app.add_option("--event-every", event_every, "an event record/wait pair every N dispatches (0: none)");
  app.add_option("--sync-every", sync_every, "a device synchronize every N dispatches (0: none)");
  app.add_flag("--infer", infer, "enable inferred cross-stream edges");
  bool pairwise = false;
  app.add_flag("--pairwise-host-sync", pairwise,
               "the former form of host synchronisations: an edge per (waited-for, released) pair, no join nodes");
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "log the time of each DAG build phase");
  CLI11_PARSE(app, argc, argv);
  rpl::log::set_level(verbose ? rpl::log::Level::Debug : rpl::log::Level::Warn);

  auto t0 = std::chrono::steady_clock::now();
  const rpl::Trace trace = make_trace(dispatches, streams, event_every, sync_every);
  std::printf("trace: %zu dispatches, %zu sync ops, built in %.2f s, rss %.0f MiB\n", trace.dispatches.size(),
              trace.sync_ops.size(), seconds_since(t0), peak_rss_mib());

  rpl::analysis::DagOptions options;
  options.infer_cross_stream = infer;
  options.pairwise_host_sync = pairwise;
  t0 = std::chrono::steady_clock::now();
  double cpu0 = cpu_seconds();
  const auto result = rpl::analysis::analyze_critical_path(trace, options);
  std::printf("analyze_critical_path%s: %.2f s wall, %.2f s cpu (path %zu nodes, %zu edges, %zu join nodes, cp %.3f ms, "
              "parallelism %.2f), peak rss %.0f MiB\n",
              pairwise ? " (pairwise host syncs)" : "", seconds_since(t0), cpu_seconds() - cpu0, result.path.size(),
              result.edges.total(), result.joins.total(), result.critical_path_ns / 1e6, result.parallelism, peak_rss_mib());

  t0 = std::chrono::steady_clock::now();
  cpu0 = cpu_seconds();
  const auto what_if = rpl::analysis::run_what_if(
      trace, {rpl::analysis::parse_what_if("gemm=0.5"), rpl::analysis::parse_what_if("softmax=0.8")}, options);
  std::printf("run_what_if (2 scenarios + combined): %.2f s wall, %.2f s cpu, predicted %.3f ms of %.3f ms, peak rss %.0f MiB\n",
              seconds_since(t0), cpu_seconds() - cpu0, what_if.back().predicted_ns / 1e6, what_if.back().baseline_ns / 1e6,
              peak_rss_mib());
  return 0;
}
