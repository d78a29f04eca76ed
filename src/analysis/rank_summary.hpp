#pragma once
// One rank of a distributed job reduced to what the cross-rank analysis needs (analysis/multi_rank.hpp):
// its identity, compute / communication time and their overlap, its collective kernels in order, and the
// work it did between them. A summary is small (a few dozen bytes per collective), so 64 ranks of a
// million dispatches each are analysed one rank at a time, and a summary can be written by one task of a
// cluster job and merged by another (rocm-perf analyze --rank-summary / --merge-summaries).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"  // WhatIf
#include "model/trace.hpp"

namespace rpl::analysis {

// A collective kernel as this rank ran it: the `sequence`-th instance of its key on this rank.
struct CollectiveArrival {
  uint32_t key = 0;       // into RankSummary::names
  uint32_t sequence = 0;  // 0-based, per key
  TimeNs start = 0, end = 0;
};

// What the rank did between leaving its previous collective (or its first activity) and arriving at the
// next one (or its last activity, for the segment after its last collective).
struct WorkSegment {
  TimeNs busy_ns = 0;          // summed duration of its compute kernels (started in the segment)
  uint32_t top_kernel = 0;     // into RankSummary::names: the compute kernel with the most time in it; 0 = none
  TimeNs top_kernel_ns = 0;
  std::vector<TimeNs> saved_ns;  // per what-if scenario: the time those kernels would save
};

inline constexpr int kRankSummarySchemaVersion = 1;
inline constexpr std::size_t kActivityBins = 200;

struct RankSummary {
  RankIdentity identity;  // rank -1: not recorded (numbered later by the merge)
  std::string host;
  int64_t pid = 0;
  std::string gpu;          // UUID where recorded, else product name and index
  std::string source_file;  // the database it came from
  TimeNs first_start = 0, last_end = 0;  // first / last GPU activity
  TimeNs compute_ns = 0;        // union of compute kernels
  TimeNs communication_ns = 0;  // union of collective kernels and peer copies
  TimeNs overlap_ns = 0;        // time both ran
  uint64_t dispatches = 0, collective_kernels = 0, peer_copies = 0, peer_copy_bytes = 0;
  std::vector<std::string> names;              // names[0] = ""
  std::vector<CollectiveArrival> collectives;  // in start order
  std::vector<WorkSegment> segments;           // collectives.size() + 1
  std::vector<std::string> what_if;            // the scenarios WorkSegment::saved_ns refers to
  std::vector<std::pair<std::string, uint64_t>> nccl_calls;  // NCCL's NVTX ranges by call ("AllReduce": 40)
  // Activity over [first_start, last_end] in kActivityBins bins: the fraction of each bin compute
  // (resp. communication) covered, for the per-rank timelines.
  std::vector<float> compute_bins, communication_bins;
};

struct RankSummaryOptions {
  std::vector<WhatIf> what_if;  // kernels (display name) and collectives (key) they scale
};

// One summary per process of `trace` (rocpd databases hold one process each, merged ones several).
std::vector<RankSummary> summarize_ranks(const Trace& trace, const RankSummaryOptions& options = {});

}  // namespace rpl::analysis
