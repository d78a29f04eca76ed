// Times compute_kernel_stats and kernel_occupancies on a synthetic in-memory trace.
//   bench_kernel_stats [--dispatches N] [--kernels K] [--shuffle]
// --shuffle stores the dispatches out of start order, forcing the sort in the busy-time unions.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "analysis/kernel_occupancy.hpp"
#include "analysis/kernel_stats.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kernel statistics benchmark"};
  std::size_t dispatches = 1'000'000;
  std::size_t kernels = 200;
  bool shuffle = false;
  app.add_option("--dispatches", dispatches);
  app.add_option("--kernels", kernels);
  app.add_flag("--shuffle", shuffle);
  CLI11_PARSE(app, argc, argv);

  rpl::Trace trace;
  for (int p = 0; p < 2; ++p) {
    rpl::Process proc;
    proc.pid = 1000 + p;
    trace.processes.push_back(proc);
    rpl::Agent agent;
    agent.process = p;
    agent.is_gpu = true;
    agent.name = "gfx942:sramecc+:xnack-";
    agent.wave_front_size = 64;
    trace.agents.push_back(agent);
    // Each process loads every kernel: 2 x K symbols, merged by display name.
    for (std::size_t k = 0; k < kernels; ++k) {
      rpl::KernelSymbol s;
      s.process = p;
      s.display_name = trace.strings.intern(fmt::format("kernel_{}(float*, int)", k));
      s.mangled_name = trace.strings.intern(fmt::format("_Z8kernel_{}Pfi", k));
      s.arch_vgpr_count = 32 + 8 * (k % 8);
      s.sgpr_count = 48;
      trace.symbols.push_back(s);
    }
  }
  std::mt19937_64 rng(7);
  trace.dispatches.reserve(dispatches);
  rpl::TimeNs t = 0;
  for (std::size_t i = 0; i < dispatches; ++i) {
    rpl::Dispatch d;
    const std::size_t p = i % 2;
    // Skewed kernel popularity, like real applications.
    const std::size_t k = std::min<std::size_t>(kernels - 1, static_cast<std::size_t>(rng() % kernels) * (rng() % 4) / 3);
    d.symbol = static_cast<rpl::Index>(p * kernels + k);
    d.process = static_cast<rpl::Index>(p);
    d.agent = static_cast<rpl::Index>(p);
    d.start = t;
    d.end = t + 1000 + static_cast<rpl::TimeNs>(rng() % 5000);
    t += 800 + static_cast<rpl::TimeNs>(rng() % 2000);
    d.block[0] = (rng() % 16 == 0) ? 512 : 256;
    d.dispatch_id = static_cast<int64_t>(i);
    trace.dispatches.push_back(d);
  }
  if (shuffle) {  // the table holds values: shuffled as a copy, then written back
    std::vector<rpl::Dispatch> records(trace.dispatches.begin(), trace.dispatches.end());
    std::shuffle(records.begin(), records.end(), rng);
    for (std::size_t i = 0; i < records.size(); ++i) trace.dispatches.set(i, records[i]);
  }

  auto t0 = std::chrono::steady_clock::now();
  const rpl::analysis::KernelStatsResult stats = rpl::analysis::compute_kernel_stats(trace);
  const double stats_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  const auto occupancies = rpl::analysis::kernel_occupancies(trace, stats);
  const double occ_s = seconds_since(t0);

  fmt::print("dispatches={} kernels={} shuffled={}\n", dispatches, stats.kernels.size(), shuffle);
  fmt::print("compute_kernel_stats: {:.3f} s  (busy {:.3f} of span {:.3f} s)\n", stats_s,
             stats.timing.kernel_busy_ns * 1e-9, stats.timing.wall_span_ns * 1e-9);
  fmt::print("kernel_occupancies:   {:.3f} s  (top kernel: {} configurations, occupancy {:.3f})\n", occ_s,
             occupancies.front().launch_configurations,
             occupancies.front().top ? occupancies.front().top->occupancy.theoretical : -1.0);
  return 0;
}
