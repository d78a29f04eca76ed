#pragma once
// The matching of collective instances across ranks and the per-communicator report, for
// analysis/multi_rank.cpp (its internals; nothing else includes this).
//
// Matching: a kernel linked to a library call (RankSummary::collectives[].comm != 0) is matched per
// communicator: the members of a communicator issue its calls in the same order, so the q-th call of an
// operation on communicator C on each member is one instance (Send and Recv between the same two members
// form one "SendRecv" sequence per pair). Every other kernel is matched as before: the q-th kernel of a
// name on each rank that ran it. Traces that cannot be of one job are refused (rpl::Error InputInvalid):
// two processes claiming the same rank of a communicator, members disagreeing on its size, or on the
// operation, count or data type of one of its calls.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/multi_rank.hpp"

namespace rpl::analysis::detail {

struct GlobalComm {
  uint64_t id = 0;
  int32_t size = 0;
  int32_t nodes = 0;  // as the library said (the largest any member recorded)
  std::vector<std::pair<int32_t, uint32_t>> members;  // (rank in the communicator, rank index), by the former
};

struct Matching {
  std::vector<std::string> keys;      // group -> its name (CollectiveReport::key)
  std::vector<std::string> kernels;   // group -> the kernel name of its first instance (what-if matches it too)
  std::vector<int> comm;              // group -> index into comms, -1 = matched by name and order
  std::vector<std::string> operation; // group -> the operation of its calls ("" by name)
  std::vector<std::vector<std::vector<uint32_t>>> arrivals;  // [group][rank] -> indices into collectives, in order
  std::vector<std::size_t> instances;                       // [group] matched instances (min over participants)
  std::vector<GlobalComm> comms;
  std::size_t by_comm = 0, by_name = 0;  // kernels matched each way
};

struct Instance {
  uint32_t key = 0, sequence = 0;
  TimeNs last_start = 0, first_end = 0, last_end = 0;
  TimeNs real_ns = 0;
  uint32_t late_rank = UINT32_MAX;  // the member that arrived last by more than the tolerance, if any
  TimeNs imposed_ns = 0;            // the others' mean wait for it then
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (rank index, index into its collectives)
};

std::string comm_name(uint64_t id);

// Fills out.collectives (one per group) and warnings; throws on traces that cannot be of one job.
Matching match(const std::vector<RankSummary>& s, MultiRankResult& out);

// Fills out.communicators and out.findings from the instances (stragglers need the job's span).
void report_communicators(const std::vector<RankSummary>& s, const Matching& m, const std::vector<Instance>& inst,
                          const MultiRankOptions& options, MultiRankResult& out);

TimeNs median_ns(std::vector<TimeNs> v);

}  // namespace rpl::analysis::detail
