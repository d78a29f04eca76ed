#pragma once
// The in-memory trace model. One model for both vendors: the rocpd importer fills it from rocprofv3
// databases (AMD) and from our CUPTI collector's databases (NVIDIA), and every analysis is a pure
// function over it.
//
// Layout: entities (processes, agents, queues, streams, kernel symbols) live in small tables and are
// referred to by 32-bit indices; the dispatches are stored by column (DispatchTable), the other large tables
// (copies, API calls) hold compact fixed-size records, so memory grows with the number of dispatches and
// nothing else. Kernel names are interned once.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/collective_calls.hpp"
#include "model/dispatch_table.hpp"
#include "model/device_metrics.hpp"
#include "model/rank_identity.hpp"

namespace rpl {


// Interned strings (kernel names, API names, copy kinds). Id 0 is the empty string.
class StringTable {
 public:
  StringTable() { intern(""); }
  Index intern(std::string_view s);
  const std::string& at(Index id) const { return strings_[id]; }
  std::size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, Index> ids_;
};

// One profiled process; a trace may hold several (one rocpd database each, or merged).
struct Process {
  std::string guid;         // rocpd process GUID; ids of every other table are only unique within it
  std::string source_file;  // the database it came from
  int64_t pid = 0;
  int64_t ppid = 0;
  std::string hostname;
  std::string command;
  TimeNs start = 0;  // 0 when the trace does not say
  TimeNs end = 0;
  RankIdentity rank;  // of a distributed job (rocpd_info_process.extdata); unknown outside one
};

// A CPU or GPU agent (AMD: HSA agent; NVIDIA: CUDA device).
struct Agent {
  Index process = kNoIndex;
  int64_t rocpd_id = 0;       // rocpd_info_agent.id (the KFD node id on AMD)
  bool is_gpu = false;
  std::string name;           // architecture: "gfx942", "gfx90a", "sm_90", ...
  std::string product_name;   // "AMD Instinct MI300X", "NVIDIA H100 80GB HBM3"
  std::string vendor_name;
  int64_t absolute_index = -1;
  int64_t logical_index = -1;
  // From extdata where present (0 = unknown). Enough for occupancy and peak estimates.
  uint32_t cu_count = 0;            // CUs (AMD) or SMs (NVIDIA)
  uint32_t simd_per_cu = 0;
  uint32_t max_waves_per_simd = 0;
  uint32_t wave_front_size = 0;
  uint32_t lds_size_kb = 0;
  uint32_t max_clock_mhz = 0;
  uint32_t gfx_target_version = 0;
  std::string uuid;                 // extdata "uuid" where the collector recorded it (NVIDIA: GPU-xxxxxxxx-...)
};

struct Queue {
  Index process = kNoIndex;
  int64_t rocpd_id = 0;
  std::string name;
};

struct Stream {
  Index process = kNoIndex;
  int64_t rocpd_id = 0;
  std::string name;
};

// A kernel as loaded in one process. Resources are per kernel, not per launch.
struct KernelSymbol {
  Index process = kNoIndex;
  int64_t rocpd_id = 0;            // rocpd_info_kernel_symbol.id (kernel_id)
  Index mangled_name = 0;          // into Trace::strings
  Index display_name = 0;          // demangled; the name analyses group by
  int64_t code_object_id = 0;
  uint32_t kernarg_size = 0;
  uint32_t static_lds_bytes = 0;   // group_segment_size of the symbol (static LDS / shared memory)
  uint32_t private_segment_bytes = 0;
  uint32_t sgpr_count = 0;         // AMD SGPRs; 0 on NVIDIA
  uint32_t arch_vgpr_count = 0;    // AMD arch VGPRs; NVIDIA registers per thread
  uint32_t accum_vgpr_count = 0;   // AMD AGPRs
};

// An asynchronous memory copy or fill.
struct MemoryCopy {
  TimeNs start = 0;
  TimeNs end = 0;
  int64_t copy_id = 0;
  int64_t correlation_id = 0;
  Index process = kNoIndex;
  Index kind = 0;               // into Trace::strings, e.g. "MEMORY_COPY_HOST_TO_DEVICE"
  Index stream = kNoIndex;
  Index queue = kNoIndex;
  Index src_agent = kNoIndex;
  Index dst_agent = kNoIndex;
  uint32_t thread = 0;
  uint64_t bytes = 0;
  TimeNs duration() const { return end - start; }
};

// A host API call or marker range (HIP/CUDA runtime, HSA, ROCTx/NVTX).
struct ApiCall {
  TimeNs start = 0;
  TimeNs end = 0;
  int64_t correlation_id = 0;
  Index process = kNoIndex;
  uint32_t thread = 0;
  Index name = 0;      // into Trace::strings ("hipLaunchKernel", "cudaStreamSynchronize", ...)
  Index category = 0;  // into Trace::strings ("HIP_RUNTIME_API_EXT", "MARKER_CORE_API", ...)
};

// A dependency-creating operation that the trace recorded. These, and stream order, are the only
// sources of edges in the critical-path DAG: nothing is inferred from timing.
enum class SyncKind : uint8_t {
  EventRecord,        // event captures all work submitted to `stream` before it
  StreamWaitEvent,    // work submitted to `stream` after this waits for `event`'s captured work
  StreamSynchronize,  // the host waits for all work submitted to `stream` before it
  EventSynchronize,   // the host waits for `event`'s captured work
  DeviceSynchronize,  // the host waits for all work of the process
};

enum class SyncSource : uint8_t {
  HostApi,     // an API call; ordered against work by correlation id (submission order)
  GpuBarrier,  // a GPU-side barrier/signal record; ordered against work by GPU timestamps
};

struct SyncOp {
  SyncKind kind = SyncKind::DeviceSynchronize;
  SyncSource source = SyncSource::HostApi;
  Index process = kNoIndex;
  uint32_t thread = 0;
  Index stream = kNoIndex;    // kNoIndex for device-wide operations
  uint64_t event = 0;         // event handle for record/wait/event-sync; 0 otherwise
  int64_t correlation_id = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

// One hardware counter value of one dispatch (rocpd_pmc_event rows of the same dispatch and counter are
// summed, as the counters_collection view does). Names are the collector's: rocprofv3 counter names on
// AMD ("SQ_INSTS_VALU_FMA_F32", "TCC_EA0_RDREQ_sum"), ncu metric names on NVIDIA.
struct CounterSample {
  Index dispatch = kNoIndex;  // into Trace::dispatches
  Index counter = 0;          // into Trace::strings
  double value = 0;
};

struct Trace {
  StringTable strings;
  std::vector<Process> processes;
  std::vector<Agent> agents;
  std::vector<Queue> queues;
  std::vector<Stream> streams;
  std::vector<KernelSymbol> symbols;
  DispatchTable dispatches;  // by column: 24 bytes per dispatch (model/dispatch_table.hpp)
  std::vector<MemoryCopy> copies;
  std::vector<ApiCall> api_calls;
  std::vector<SyncOp> sync_ops;
  std::vector<CounterSample> counters;  // empty unless counters were collected
  std::vector<DeviceMetricSeries> device_metrics;  // empty unless the run was monitored (--monitor-device)
  std::vector<CollectiveCall> collective_calls;    // empty unless the library's calls were recorded
  std::vector<GpuLink> gpu_links;                  // empty unless the collector recorded the topology

  const std::string& kernel_name(const Dispatch& d) const {
    return strings.at(symbols[d.symbol].display_name);
  }
  bool empty() const { return dispatches.empty() && copies.empty(); }
};

// Runtime helper kernels (blits, fills) are reported but never chosen as the dominant kernel.
bool is_runtime_kernel(std::string_view display_name);

}  // namespace rpl
