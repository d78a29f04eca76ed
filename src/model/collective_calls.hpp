#pragma once
// What a collective-communication library said about its calls (NCCL's profiler plugin on NVIDIA, RCCL's
// API trace on AMD), and what the collector recorded of the links between GPUs. Kernel records carry
// neither: see docs/multi-gpu.md ("Collectives by communicator").
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace rpl {

using TimeNs = int64_t;
using Index = uint32_t;

// One collective or point-to-point call as the library enqueued it in one process.
struct CollectiveCall {
  Index process = std::numeric_limits<uint32_t>::max();   // into Trace::processes
  uint64_t comm_id = 0;         // the communicator's id, equal on every member (NCCL's commHash); 0 = unknown
  int32_t comm_size = 0;        // ranks in the communicator
  int32_t comm_rank = -1;       // this process's rank in it
  int32_t comm_nodes = 0;       // nodes it spans; 0 = unknown
  uint64_t sequence = 0;        // the call's number in its communicator (same on every member)
  std::string operation;        // "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "Send", "Recv", ...
  std::string data_type;        // normalised like kernel names: "f32", "bf16", "i8", ...
  uint64_t count = 0;           // elements, as passed to the call (per rank for AllGather / ReduceScatter)
  uint64_t bytes = 0;           // count x element size
  int32_t root = -1;            // Broadcast / Reduce root (rank in the communicator); -1 = none
  int32_t peer = -1;            // Send / Recv peer (rank in the communicator); -1 = none
  std::string algorithm, protocol;  // as the library chose them ("RING", "SIMPLE"); "" = not said
  uint32_t channels = 0;
  uint64_t group = 0;           // calls of one group on one communicator run as one kernel; 0 = its own group
  uint64_t stream = 0;          // the stream handle where the library said it; 0 = unknown
  TimeNs start = 0, end = 0;    // host time the library enqueued it / reported it done (CLOCK_BOOTTIME); 0 = not said
  std::string source;           // "nccl-profiler", "rocprofv3-rccl"
};

// One link of a GPU as the collector recorded the machine's topology: `peer_uuid` empty for the GPU's
// own total towards its fabric (all its NVLinks, or its PCIe link).
struct GpuLink {
  Index process = std::numeric_limits<uint32_t>::max();
  std::string gpu_uuid, peer_uuid;
  std::string kind;             // "nvlink", "pcie", "xgmi"
  uint32_t links = 0;           // NVLinks between the two (or of the GPU in all); PCIe lanes for "pcie"
  double gb_per_s = 0;          // peak per direction, GB/s (1e9 bytes per second)
  std::string source;           // "nvidia-smi"
};

// Element size of a normalised data type ("bf16" -> 2); 0 when unknown.
uint32_t data_type_bytes(std::string_view data_type);

// NCCL's / RCCL's data type names ("ncclBfloat16", "ncclFloat32", "ncclInt8", "float", "half") normalised
// to the kernel-name spelling ("bf16", "f32", "i8"); unknown names are returned unchanged.
std::string normalize_data_type(std::string_view name);

}  // namespace rpl
