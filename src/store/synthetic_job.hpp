#pragma once
// Writes the rocpd databases of a synthetic distributed job: R ranks (on nodes of `ranks_per_node`), each
// running steps of compute kernels followed by an NCCL collective that completes only when the last rank
// arrives. A straggler rank can be delayed before chosen collectives, and each node's clock shifted, so
// that the analysis across ranks has a known answer. For the tests and the scale benchmark
// (bench/gen_multi_rank.cpp); two passes, so memory is one time per step whatever the size.
#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::rocpd {

struct SyntheticJob {
  unsigned ranks = 2;
  unsigned ranks_per_node = 8;
  uint64_t steps = 100;               // collectives per rank
  unsigned kernels_per_step = 10;     // compute kernels before each collective
  unsigned allgather_every = 5;       // every K-th collective is an AllGather (bf16), the others AllReduce (f32)
  TimeNs node_clock_skew_ns = 0;      // node n's clock reads n * skew ahead of true time
  int straggler_rank = -1;
  TimeNs straggler_delay_ns = 0;      // idle time before the collectives below, on the straggler only
  bool straggle_before_allgather_only = true;  // else before every collective
  bool record_rank = true;            // write the rank into rocpd_info_process.extdata
  uint64_t seed = 1;
  std::string output_dir;
};

inline constexpr const char* kSyntheticAllReduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
inline constexpr const char* kSyntheticAllGather = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

// Returns the database paths, one per rank (<output_dir>/<host>/rank<R>.db).
std::vector<std::string> write_synthetic_job(const SyntheticJob& job);

}  // namespace rpl::rocpd
