#pragma once
// A synthetic tensor x data parallel job in memory (issue 31): 4 ranks, tensor-parallel groups {0,1} and {2,3}
// all-reducing inside the group, data-parallel communicators {0,2} and {1,3} all-reducing across. Every
// all-reduce runs the same kernel name, so only the communicator tells them apart. The job is simulated with
// the join semantics the analysis models (a collective completes when its last member arrives plus its
// transfer time), so the analysis has an exact answer.
#include <cstdint>

#include "model/trace.hpp"

namespace rpl::test {

struct TpDpJob {
  int steps = 20;
  TimeNs gemm_ns = 100000;            // per GEMM
  int gemms = 4;                      // per step, before the tensor-parallel all-reduce
  int slow_group_extra_gemms = 0;     // group {2,3} runs this many more GEMMs per step
  int group1_tp_calls = 1;            // tensor-parallel all-reduces per step in group {2,3} (group {0,1}: 1)
  double gemm_factor = 1.0;           // scales every GEMM (a "rerun" for what-if)
  uint64_t tp_bytes = 8u << 20, dp_bytes = 32u << 20;  // bf16
  TimeNs tp_real_ns = 40000, dp_real_ns = 100000;      // transfer times
  bool record_calls = true;
  bool record_links = true;
  double nvlink_gb_per_s = 450;
};

inline constexpr const char* kTpDpAllReduceKernel = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
uint64_t tp_comm_id(int group);  // 0x1000 + group
uint64_t dp_comm_id(int column);  // 0x2000 + column

Trace make_tp_dp_job(const TpDpJob& job);
TimeNs tp_dp_job_span(const Trace& trace);

}  // namespace rpl::test
