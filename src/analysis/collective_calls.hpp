#pragma once
// The library's record of its collective calls (model/collective_calls.hpp) joined to the kernels that ran
// them, and the bandwidth figures nccl-tests defines for them.
//
// Linking (per process): NCCL/RCCL launch one kernel per communicator for each group of calls (a call
// outside ncclGroupStart/End is its own group) at the end of the group, in the order the calls were made,
// so the call groups in enqueue order and the collective kernels in launch order (correlation id) are the
// same sequence. A group whose communicator has one rank, or whose calls move no bytes, launches no
// kernel. The two sequences are zipped, checking that each kernel's operation (from its name) is the
// group's; a disagreement skips the call group or the kernel, whichever lets the next pair agree, and is
// counted, never guessed over.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.hpp"

namespace rpl::analysis {

struct CallLinks {
  // Per dispatch of `kernels` (the same order): the calls (indices into Trace::collective_calls) it ran.
  std::vector<std::vector<Index>> calls_of_kernel;
  std::size_t calls = 0;            // the process's calls
  std::size_t unlinked_calls = 0;   // calls expected to launch a kernel that none could be linked to
  std::size_t unlinked_kernels = 0; // kernels with no call
};

// `kernels`: the process's collective kernels (indices into Trace::dispatches) in launch order.
CallLinks link_collective_calls(const Trace& trace, Index process, const std::vector<Index>& kernels);

// nccl-tests' bus bandwidth factor for an operation over n ranks: 2(n-1)/n for AllReduce, (n-1)/n for
// AllGather, ReduceScatter and AllToAll, 1 for Broadcast, Reduce, Send, Recv and SendRecv; 0 when unknown.
double bus_bandwidth_factor(std::string_view operation, int ranks);

// Send, Recv or SendRecv.
bool is_point_to_point(std::string_view operation);

// The size nccl-tests divides by the time (its "size" column) for a call that passed `bytes`
// (count x element size): the whole buffer for AllGather and ReduceScatter (NCCL's count is per rank
// there: bytes x n), the call's bytes otherwise.
uint64_t algorithm_bytes(std::string_view operation, uint64_t bytes, int ranks);

}  // namespace rpl::analysis
