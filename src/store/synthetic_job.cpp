#include "store/synthetic_job.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>

#include "store/rocpd_writer.hpp"

namespace rpl::rocpd {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// A deterministic value in [lo, hi) for (seed, rank, step, k): both passes draw the same numbers.
TimeNs draw(const SyntheticJob& j, uint64_t rank, uint64_t step, uint64_t k, TimeNs lo, TimeNs hi) {
  uint64_t h = mix(mix(mix(mix(j.seed) ^ rank) ^ step) ^ k);
  return lo + static_cast<TimeNs>(h % static_cast<uint64_t>(hi - lo));
}

constexpr TimeNs kGemmNs = 50000, kElementwiseNs = 8000, kLaunchGapNs = 2000, kRealNs = 20000;

bool is_allgather(const SyntheticJob& j, uint64_t step) { return j.allgather_every && step % j.allgather_every == j.allgather_every - 1; }

TimeNs kernel_ns(const SyntheticJob& j, unsigned rank, uint64_t step, unsigned k) {
  const TimeNs mean = k % 2 == 0 ? kGemmNs : kElementwiseNs;
  return draw(j, rank, step, k, mean * 9 / 10, mean * 11 / 10);
}

TimeNs delay(const SyntheticJob& j, unsigned rank, uint64_t step) {
  if (static_cast<int>(rank) != j.straggler_rank) return 0;
  return !j.straggle_before_allgather_only || is_allgather(j, step) ? j.straggler_delay_ns : 0;
}

TimeNs compute_span(const SyntheticJob& j, unsigned rank, uint64_t step) {
  TimeNs t = 0;
  for (unsigned k = 0; k < j.kernels_per_step; ++k) t += kLaunchGapNs + kernel_ns(j, rank, step, k);
  return t + kLaunchGapNs + delay(j, rank, step);
}

}  // namespace

std::vector<std::string> write_synthetic_job(const SyntheticJob& j) {
  // Pass 1: when each collective completes (true time), from every rank's work before it.
  std::vector<TimeNs> complete(j.steps);
  TimeNs leave = 1'000'000'000;
  for (uint64_t s = 0; s < j.steps; ++s) {
    TimeNs last = 0;
    for (unsigned r = 0; r < j.ranks; ++r) last = std::max(last, leave + compute_span(j, r, s));
    complete[s] = last + kRealNs;
    leave = complete[s];
  }

  // Pass 2: each rank's database.
  std::vector<std::string> paths;
  for (unsigned r = 0; r < j.ranks; ++r) {
    const unsigned node_index = r / std::max(1u, j.ranks_per_node);
    const std::string host = fmt::format("node{}", node_index);
    const TimeNs skew = static_cast<TimeNs>(node_index) * j.node_clock_skew_ns;
    const std::string dir = (std::filesystem::path(j.output_dir) / host).string();
    std::filesystem::create_directories(dir);
    const std::string path = fmt::format("{}/rank{}.db", dir, r);
    std::filesystem::remove(path);

    NodeRow node;
    node.id = 1 + node_index;
    node.machine_id = host + "-machine";
    node.hostname = host;
    ProcessRow proc;
    proc.pid = 50000 + r;
    proc.ppid = 1;
    proc.command = "python3 train.py";
    if (j.record_rank)
      proc.extdata_json = rank_identity_json(RankIdentity{static_cast<int64_t>(r),
                                                          static_cast<int64_t>(r % std::max(1u, j.ranks_per_node)),
                                                          static_cast<int64_t>(j.ranks), "RANK", ""});
    Writer w(path, node, proc);
    w.add_thread({proc.pid, "main", 0, 0});
    AgentRow gpu;
    gpu.id = 1;
    gpu.absolute_index = gpu.logical_index = r % std::max(1u, j.ranks_per_node);
    gpu.name = "sm_90";
    gpu.vendor_name = "NVIDIA";
    gpu.product_name = "NVIDIA H100 80GB HBM3";
    gpu.extdata_json = fmt::format(R"({{"cu_count":132,"uuid":"GPU-synthetic-{:04d}"}})", r);
    w.add_agent(gpu);
    w.add_stream(7, "Stream 7");
    w.add_queue(7, "Stream 7");
    w.add_code_object(1, 1, "file:///train.py");
    const char* names[][2] = {{"_Z4gemmPKfS0_Pf", "gemm(float const*, float const*, float*)"},
                              {"_Z10elementwisePf", "elementwise(float*)"},
                              {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", kSyntheticAllReduce},
                              {"ncclDevKernel_AllGather_RING_LL", kSyntheticAllGather}};
    for (int k = 0; k < 4; ++k) {
      KernelSymbolRow sym;
      sym.id = k + 1;
      sym.code_object_id = 1;
      sym.kernel_name = names[k][0];
      sym.display_name = names[k][1];
      w.add_kernel_symbol(sym);
    }
    int64_t id = 1;
    TimeNs t = 1'000'000'000;
    auto dispatch = [&](int64_t kernel, TimeNs start, TimeNs end) {
      DispatchRow d;
      d.dispatch_id = id;
      d.correlation_id = id++;
      d.tid = proc.pid;
      d.agent_id = 1;
      d.kernel_id = kernel;
      d.queue_id = d.stream_id = 7;
      d.start = start + skew;
      d.end = end + skew;
      w.add_dispatch(d);
    };
    for (uint64_t s = 0; s < j.steps; ++s) {
      for (unsigned k = 0; k < j.kernels_per_step; ++k) {
        t += kLaunchGapNs;
        const TimeNs d = kernel_ns(j, r, s, k);
        dispatch(k % 2 == 0 ? 1 : 2, t, t + d);
        t += d;
      }
      t += kLaunchGapNs + delay(j, r, s);
      // Ends differ by up to a microsecond between ranks, as a ring's last step does.
      const TimeNs end = complete[s] + draw(j, r, s, 999, 0, 1000);
      dispatch(is_allgather(j, s) ? 4 : 3, t, end);
      t = end;
    }
    w.finish();
    paths.push_back(path);
  }
  return paths;
}

}  // namespace rpl::rocpd
