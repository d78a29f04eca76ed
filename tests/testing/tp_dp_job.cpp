#include "testing/tp_dp_job.hpp"

#include <algorithm>
#include <array>
#include <string>

namespace rpl::test {

uint64_t tp_comm_id(int group) { return 0x1000u + static_cast<uint64_t>(group); }
uint64_t dp_comm_id(int column) { return 0x2000u + static_cast<uint64_t>(column); }

namespace {

struct Builder {
  Trace& t;
  std::array<Index, 4> gemm{}, ar{};
  std::array<int64_t, 4> correlation{};
  std::array<uint64_t, 4> tp_seq{}, dp_seq{};

  void dispatch(int r, Index symbol, TimeNs start, TimeNs end) {
    Dispatch d;
    d.start = start, d.end = end;
    d.dispatch_id = static_cast<int64_t>(t.dispatches.size()) + 1;
    d.correlation_id = ++correlation[static_cast<std::size_t>(r)];
    d.process = static_cast<Index>(r);
    d.symbol = symbol;
    d.agent = static_cast<Index>(r);
    t.dispatches.push_back(d);
  }
  void call(const TpDpJob& j, int r, bool tp, TimeNs at) {
    if (!j.record_calls) return;
    CollectiveCall c;
    c.process = static_cast<Index>(r);
    c.comm_id = tp ? tp_comm_id(r / 2) : dp_comm_id(r % 2);
    c.comm_size = 2;
    c.comm_rank = tp ? r % 2 : r / 2;
    c.comm_nodes = 1;
    c.sequence = tp ? tp_seq[static_cast<std::size_t>(r)]++ : dp_seq[static_cast<std::size_t>(r)]++;
    c.operation = "AllReduce";
    c.data_type = "bf16";
    c.bytes = tp ? j.tp_bytes : j.dp_bytes;
    c.count = c.bytes / 2;
    c.algorithm = "RING";
    c.protocol = "LL";
    c.start = c.end = at;
    c.source = "test";
    t.collective_calls.push_back(c);
  }
};

}  // namespace

Trace make_tp_dp_job(const TpDpJob& j) {
  Trace t;
  Builder b{t};
  for (int r = 0; r < 4; ++r) {
    Process p;
    p.pid = 1000 + r;
    p.guid = "0b6e1a52-2f4c-4d7e-9a31-5c2d7e8f9a1" + std::to_string(r);
    p.hostname = "node0";
    p.source_file = "rank" + std::to_string(r) + ".db";
    p.rank = RankIdentity{r, r, 4, "RANK", ""};
    t.processes.push_back(p);
    Agent a;
    a.process = static_cast<Index>(r);
    a.is_gpu = true;
    a.name = "sm_90";
    a.product_name = "NVIDIA H200";
    a.logical_index = r;
    a.uuid = "GPU-test-" + std::to_string(r);
    t.agents.push_back(a);
    for (int k = 0; k < 2; ++k) {
      KernelSymbol s;
      s.process = static_cast<Index>(r);
      s.rocpd_id = k + 1;
      s.display_name = s.mangled_name = t.strings.intern(k == 0 ? "gemm_bf16" : kTpDpAllReduceKernel);
      t.symbols.push_back(s);
      (k == 0 ? b.gemm : b.ar)[static_cast<std::size_t>(r)] = static_cast<Index>(t.symbols.size() - 1);
    }
    if (j.record_links) {
      t.gpu_links.push_back({static_cast<Index>(r), a.uuid, "", "nvlink", 18, j.nvlink_gb_per_s, "test"});
      for (int o = 0; o < 4; ++o)
        if (o != r)
          t.gpu_links.push_back({static_cast<Index>(r), a.uuid, "GPU-test-" + std::to_string(o), "nvlink", 18,
                                 j.nvlink_gb_per_s, "test"});
    }
  }
  const TimeNs gemm = static_cast<TimeNs>(static_cast<double>(j.gemm_ns) * j.gemm_factor);
  std::array<TimeNs, 4> now{};
  now.fill(1'000'000);
  for (int s = 0; s < j.steps; ++s) {
    // Compute, then the tensor-parallel all-reduce(s) of each group.
    for (int g = 0; g < 2; ++g) {
      const int calls = g == 1 ? j.group1_tp_calls : 1;
      for (int c = 0; c < calls; ++c) {
        std::array<TimeNs, 2> arrive{};
        for (int m = 0; m < 2; ++m) {
          const int r = 2 * g + m;
          const int n = c == 0 ? j.gemms + (g == 1 ? j.slow_group_extra_gemms : 0) : 1;
          TimeNs& at = now[static_cast<std::size_t>(r)];
          for (int k = 0; k < n; ++k, at += gemm + 1000) b.dispatch(r, b.gemm[static_cast<std::size_t>(r)], at, at + gemm);
          arrive[static_cast<std::size_t>(m)] = at + 500 * m;  // a little skew inside the group
        }
        const TimeNs done = std::max(arrive[0], arrive[1]) + j.tp_real_ns;
        for (int m = 0; m < 2; ++m) {
          const int r = 2 * g + m;
          b.call(j, r, true, arrive[static_cast<std::size_t>(m)] - 5000);
          b.dispatch(r, b.ar[static_cast<std::size_t>(r)], arrive[static_cast<std::size_t>(m)], done);
          now[static_cast<std::size_t>(r)] = done + 2000;
        }
      }
    }
    // The data-parallel all-reduce across the groups: {0,2} and {1,3}.
    for (int col = 0; col < 2; ++col) {
      const int r0 = col, r1 = col + 2;
      const TimeNs a0 = now[static_cast<std::size_t>(r0)], a1 = now[static_cast<std::size_t>(r1)];
      const TimeNs done = std::max(a0, a1) + j.dp_real_ns;
      for (int r : {r0, r1}) {
        const TimeNs at = now[static_cast<std::size_t>(r)];
        b.call(j, r, false, at - 5000);
        b.dispatch(r, b.ar[static_cast<std::size_t>(r)], at, done);
        now[static_cast<std::size_t>(r)] = done + 2000;
      }
    }
  }
  // A last GEMM each, so that every rank's span ends with work.
  for (int r = 0; r < 4; ++r) {
    TimeNs at = now[static_cast<std::size_t>(r)];
    b.dispatch(r, b.gemm[static_cast<std::size_t>(r)], at, at + gemm);
  }
  return t;
}

TimeNs tp_dp_job_span(const Trace& t) {
  TimeNs lo = t.dispatches.front().start, hi = t.dispatches.front().end;
  for (const Dispatch& d : t.dispatches) lo = std::min(lo, d.start), hi = std::max(hi, d.end);
  return hi - lo;
}

}  // namespace rpl::test
