#pragma once
// NCCL / RCCL collective kernels recognised by name. Both libraries name their device kernels after what
// they do: NCCL >= 2.19 "ncclDevKernel_AllReduce_Sum_f32_RING_LL", older NCCL and RCCL
// "ncclKernel_AllReduce_RING_LL_Sum_float", and a generic kernel ("ncclDevKernel_Generic",
// "ncclDevKernel_SendRecv") that runs whatever the host queued. What the name does not say (bytes,
// communicator, peers) the kernel record does not carry either; see docs/multi-gpu.md.
#include <optional>
#include <string>
#include <string_view>

namespace rpl::analysis {

struct CollectiveKernel {
  std::string library;    // "nccl" (RCCL keeps NCCL's names)
  std::string operation;  // "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "SendRecv",
                          // "AllToAll", "Generic", ...
  std::string reduce_op;  // "Sum", "Prod", "Min", "Max", "PreMulSum", "SumPostDiv"; "" when none
  std::string data_type;  // "f32", "bf16", "i8", ... (old spellings normalised: float -> f32)
  std::string algorithm;  // "RING", "TREE", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"
  std::string protocol;   // "LL", "LL128", "SIMPLE"
  // The name the instances of one collective are matched by across ranks: the kernel name without its
  // argument list (the same call gives the same kernel on every rank).
  std::string key;
};

// nullopt when `kernel_name` (mangled or demangled) is not an NCCL/RCCL device kernel.
std::optional<CollectiveKernel> parse_collective_kernel(std::string_view kernel_name);

// A host-side marker range NCCL emits around a call when NVTX is on ("ncclAllReduce", "ncclGroupEnd"):
// the call name without the "nccl" prefix, or "" when the name is not one.
std::string nccl_call_of_marker(std::string_view range_name);

// An asynchronous copy between two GPUs: the kind names a peer copy, or a device-to-device copy whose
// source and destination agents differ.
bool is_peer_copy(std::string_view copy_kind, bool agents_known_and_different);

}  // namespace rpl::analysis
