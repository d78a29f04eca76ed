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
#include "analysis/trace_summaries.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

// A collective kernel as this rank ran it: the `sequence`-th instance of its key on this rank.
// What the library said of the call(s) the kernel ran (analysis/collective_calls.hpp), where it was recorded:
// `comm` 0 means nothing was, and the kernel is matched across ranks by name and order.
struct CollectiveArrival {
  uint32_t key = 0;       // into RankSummary::names
  uint32_t sequence = 0;  // 0-based, per key
  TimeNs start = 0, end = 0;
  uint32_t comm = 0;            // into RankSummary::communicators; 0 = not recorded
  uint64_t comm_sequence = 0;   // the (first) call's number in its communicator
  uint32_t operation = 0;       // into names: "AllReduce", ... ("Group" when the kernel ran calls of several)
  uint32_t data_type = 0;       // into names: "bf16", ...
  uint64_t count = 0, bytes = 0;  // summed over the calls the kernel ran
  uint32_t calls = 0;           // calls it ran (several when they were grouped on one communicator)
  int32_t root = -1, peer = -1;
  uint32_t algorithm = 0, protocol = 0;  // into names, as the library chose them
};

struct CommunicatorInfo {
  uint64_t id = 0;        // equal on every member
  int32_t size = 0;       // ranks in it
  int32_t rank = -1;      // this process's rank in it
  int32_t nodes = 0;
};

// A link of this rank's GPU as the collector recorded it (model/collective_calls.hpp GpuLink).
struct LinkInfo {
  std::string peer_uuid;  // "" = the GPU's own total
  std::string kind;       // "nvlink", "pcie", "xgmi"
  uint32_t links = 0;
  double gb_per_s = 0;    // per direction
};

// What the rank did between leaving its previous collective (or its first activity) and arriving at the
// next one (or its last activity, for the segment after its last collective).
struct WorkSegment {
  TimeNs busy_ns = 0;          // summed duration of its compute kernels (started in the segment)
  uint32_t top_kernel = 0;     // into RankSummary::names: the compute kernel with the most time in it; 0 = none
  TimeNs top_kernel_ns = 0;
  std::vector<TimeNs> saved_ns;  // per what-if scenario: the time those kernels would save
};

inline constexpr int kRankSummarySchemaVersion = 2;
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
  TimeNs kernel_time_ns = 0;    // summed duration of every kernel (collectives too): analyze's "runtime"
  uint64_t dispatches = 0, collective_kernels = 0, peer_copies = 0, peer_copy_bytes = 0;
  std::vector<std::string> names;              // names[0] = ""
  std::vector<CollectiveArrival> collectives;  // in start order
  std::vector<WorkSegment> segments;           // collectives.size() + 1
  std::vector<std::string> what_if;            // the scenarios WorkSegment::saved_ns refers to
  std::vector<std::pair<std::string, uint64_t>> nccl_calls;  // NCCL's NVTX ranges by call ("AllReduce": 40)
  std::vector<CommunicatorInfo> communicators;  // [0] = none; the communicators its calls were on
  std::vector<LinkInfo> links;                  // of its GPU (`gpu` is its UUID where links are known)
  uint64_t calls_recorded = 0;                  // library calls recorded for this process
  uint64_t calls_unlinked = 0;                  // of them, calls no kernel could be linked to
  std::vector<CopyKindSummary> copies;          // its memory copies by kind
  std::vector<RangeSummary> ranges;             // its NVTX / ROCTx ranges by name, with their GPU time
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
