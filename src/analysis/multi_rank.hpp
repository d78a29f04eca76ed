#pragma once
// One analysis across the ranks of a distributed job, over their summaries (analysis/rank_summary.hpp):
//
// - clocks: ranks on other nodes than the reference (the lowest rank's) get an offset estimated from the
//   end times of the collectives they share with the reference rank (a collective ends near-simultaneously
//   on all participants): the median difference, its error the spread (scaled median absolute deviation).
// - collectives: where the library's calls were recorded (NCCL profiler plugin, RCCL API trace), the
//   k-th call of an operation on a communicator on each of its members is one instance (the members of a
//   communicator make its calls in the same order; analysis/communicators.hpp); else the k-th instance of a
//   collective kernel (by name) on each rank that ran it. The last arrival starts the real work, and every
//   other rank waits (last start - its start).
// - communicators: per communicator and operation, bytes, algorithm and bus bandwidth as nccl-tests
//   defines them, against the slowest member's recorded link peak; stragglers per communicator.
// - stragglers: ranks whose late arrivals make the others wait far more than any other rank does.
// - a critical path across ranks: each instance is a join node of the ranks' timelines (it completes only
//   after its last participant arrives); the path names the rank and the work that hold the job back, and
//   what-if scenarios re-time the whole job.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/collectives.hpp"
#include "analysis/rank_summary.hpp"

namespace rpl::analysis {

struct ClockOffset {
  std::string host;
  int64_t reference_rank = -1;  // the rank whose clock every other node is aligned to
  TimeNs offset_ns = 0;         // added to this node's times
  TimeNs spread_ns = 0;         // error estimate: 1.4826 x median absolute deviation of the samples
  std::size_t samples = 0;      // collective instances the estimate used
  bool applied = false;         // false for the reference node (same clock), or when no sample was found
};

struct RankReport {
  int64_t rank = 0;
  bool rank_recorded = true;  // false: numbered by input order (no launcher variable was recorded)
  int64_t local_rank = -1;
  std::string host, gpu, source_file;
  int64_t pid = 0;
  TimeNs start_ns = 0, end_ns = 0;  // aligned
  TimeNs compute_ns = 0, communication_ns = 0, overlap_ns = 0;
  TimeNs kernel_time_ns = 0;        // summed kernel durations (RankSummary::kernel_time_ns)
  TimeNs collective_wait_ns = 0;    // time inside collectives waiting for the last participant
  std::size_t last_arrivals = 0;    // instances this rank arrived at last (by more than the tolerance)
  TimeNs imposed_wait_ns = 0;       // mean wait of the other participants at those instances, summed
  TimeNs critical_path_ns = 0;      // this rank's work on the cross-rank critical path
  uint64_t dispatches = 0, collective_kernels = 0, peer_copies = 0, peer_copy_bytes = 0;
  std::vector<std::pair<std::string, uint64_t>> nccl_calls;
  std::vector<float> compute_bins, communication_bins;  // over [start_ns, end_ns]
};

struct CollectiveReport {
  std::string key;
  CollectiveKernel info;
  std::string communicator;         // "0x<16 hex>" when matched per communicator, else "" (name and order)
  std::size_t instances = 0;
  std::size_t ranks = 0;            // participants
  TimeNs total_wait_ns = 0;         // summed over ranks and instances
  TimeNs max_wait_ns = 0;
  TimeNs real_ns = 0;               // summed real (post-arrival) duration
  bool counts_differ = false;       // ranks ran different numbers: matched up to the smallest
};

struct StragglerReport {
  int64_t rank = 0;
  TimeNs imposed_wait_ns = 0;
  double share = 0;                 // of all imposed wait
  std::size_t last_arrivals = 0, instances = 0;
  std::string collective;           // the key at which it made the others wait most
  std::string communicator;         // that collective's communicator ("" when matched by name)
  uint32_t worst_sequence = 0;      // the instance of that key with the longest wait
  TimeNs worst_wait_ns = 0;
  TimeNs own_gap_ns = 0;            // its time from the previous collective to those arrivals (mean)
  TimeNs peers_gap_ns = 0;          // the other ranks' (median of their means)
  TimeNs own_busy_ns = 0;           // GPU kernel time inside its gaps (mean): low = delay on the host
  std::string top_kernel;           // the compute kernel with most time in its gaps before those instances
  std::string evidence;             // one sentence
};

struct PathStep {
  int64_t rank = 0;
  std::string before;   // the collective key this work leads into ("" = the end of the job)
  uint32_t sequence = 0;
  TimeNs work_ns = 0;   // the rank's time from its previous collective to its arrival
  std::string top_kernel;
};

struct PathHotspot {
  int64_t rank = 0;
  std::string kernel;   // "" = time without a compute kernel (host, idle, copies)
  TimeNs ns = 0;
};

struct CrossRankPath {
  TimeNs modeled_ns = 0;   // makespan of the join model with measured durations
  TimeNs measured_ns = 0;  // last end - first start over all ranks (aligned)
  std::size_t joins = 0;   // collective instances joined
  std::vector<PathStep> steps;        // in time order; at most kMaxPathSteps (the longest kept)
  std::size_t steps_total = 0;
  std::vector<PathHotspot> hotspots;  // by time on the path, descending (at most 10)
};
inline constexpr std::size_t kMaxPathSteps = 100;

struct MultiRankWhatIf {
  std::string spec;
  TimeNs baseline_ns = 0, predicted_ns = 0;
  double speedup = 1;
};

// One operation on one communicator: what was moved and how fast (nccl-tests' definitions: algorithm
// bandwidth = size / time, bus bandwidth = algorithm bandwidth x the operation's factor), timed from the
// last member's arrival to the last member's end (the transfer itself, without the wait for a late member).
struct CommunicatorOperation {
  std::string operation;            // "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "SendRecv", ...
  std::string data_type;
  std::string algorithm, protocol;  // as the library chose them for most instances
  std::size_t instances = 0;
  uint64_t bytes_min = 0, bytes_max = 0;  // per call, as passed (count x element size)
  uint64_t bytes_total = 0;
  TimeNs real_ns = 0, wait_ns = 0;
  double bus_factor = 0;
  double algbw_gb_per_s = 0;        // nccl-tests size summed / real time summed
  double busbw_gb_per_s = 0;        // algbw x bus factor
  double busbw_median_gb_per_s = 0; // median over the instances
  double link_share = 0;            // busbw / the communicator's link peak; 0 when the peak is unknown
};

struct CommunicatorReport {
  std::string id;                   // "0x<16 hex>"
  int32_t size = 0;                 // ranks in it
  std::vector<int64_t> ranks;       // the traced members' job ranks, by rank in the communicator
  std::size_t instances = 0;
  TimeNs wait_ns = 0, real_ns = 0;
  std::string link_kind;            // "nvlink", "pcie", "network" (members on different hosts), "" unknown
  double link_peak_gb_per_s = 0;    // per direction, the slowest member's; 0 = unknown
  std::vector<CommunicatorOperation> operations;
  int64_t straggler = -1;           // the member that makes the others wait (straggler test below), or -1
  TimeNs straggler_imposed_ns = 0;
  std::vector<std::string> findings;
};

struct MultiRankOptions {
  bool align_clocks = true;
  // A rank is "last" at an instance only when it arrived this much after the second-to-last.
  TimeNs arrival_tolerance_ns = 2000;
  // A communicator's bus bandwidth below this share of its link peak is a finding (for operations whose
  // calls move at least kBandwidthFindingMinBytes: smaller ones are bound by latency, not bandwidth).
  double link_share_threshold = 0.5;
};
inline constexpr uint64_t kBandwidthFindingMinBytes = 1 << 20;

struct MultiRankResult {
  std::vector<RankReport> ranks;  // by rank
  std::vector<ClockOffset> clock_offsets;  // one per node
  std::vector<CollectiveReport> collectives;  // by total wait, descending
  std::string matching;  // "communicator" (every kernel linked to a call), "name and order", or "mixed"
  std::vector<CommunicatorReport> communicators;  // by id
  std::vector<std::string> findings;              // across communicators (a slow group)
  std::vector<StragglerReport> stragglers;
  CrossRankPath critical_path;
  std::vector<MultiRankWhatIf> what_if;
  std::vector<std::string> warnings;
  std::vector<RankedCopyKind> copy_summary;  // every rank's memory copies by kind
  std::vector<RankedRange> range_summary;    // every rank's NVTX / ROCTx ranges by name
};

// Takes the summaries (ranks numbered where none was recorded, clocks aligned in place).
MultiRankResult analyze_ranks(std::vector<RankSummary>& summaries, const MultiRankOptions& options = {});

}  // namespace rpl::analysis
