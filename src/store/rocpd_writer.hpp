#pragma once
// Writes rocpd SQLite databases with the schema rocprofv3 (ROCm 7.x, rocpd schema 3.0.x) writes:
// uuid-suffixed tables, the guid column, the un-suffixed pass-through views and the data views
// (kernels, memory_copies, regions, counters_collection, ...), so that our NVIDIA collector's traces are
// read by `rocm-perf analyze` and by AMD's own rocpd tools alike.
//
// Rows are given in rocpd terms (rocpd ids, not model indices). The database is written to
// "<path>.partial" and renamed to <path> by finish(), so a reader never sees a half-written file and an
// existing file at <path> is only replaced by a complete one.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::rocpd {

struct NodeRow {
  int64_t id = 1;
  std::string machine_id = "unknown";
  std::string hostname;
  std::string system_name = "Linux";
  std::string release;
  std::string version;
  std::string hardware_name;
};

struct ProcessRow {
  int64_t pid = 0;
  int64_t ppid = 0;
  TimeNs init = 0, start = 0, end = 0, fini = 0;
  std::string command;
  std::string extdata_json;  // rocpd_info_process.extdata ("{}" when empty): the rank of a distributed job
};

struct ThreadRow {
  int64_t tid = 0;
  std::string name;
  TimeNs start = 0, end = 0;
};

struct AgentRow {
  int64_t id = 0;
  bool is_gpu = true;
  int64_t absolute_index = 0, logical_index = 0, type_index = 0;
  std::string name;          // "gfx942", "sm_90"
  std::string model_name;
  std::string vendor_name;
  std::string product_name;
  std::string extdata_json = "{}";  // cu_count, simd_per_cu, wave_front_size, ... (rocprofiler agent fields)
};

struct KernelSymbolRow {
  int64_t id = 0;
  int64_t code_object_id = 0;
  std::string kernel_name;    // mangled
  std::string display_name;   // demangled
  uint32_t kernarg_segment_size = 0;
  uint32_t group_segment_size = 0;
  uint32_t private_segment_size = 0;
  uint32_t sgpr_count = 0;
  uint32_t arch_vgpr_count = 0;
  uint32_t accum_vgpr_count = 0;
};

struct DispatchRow {
  int64_t dispatch_id = 0;
  int64_t tid = 0;
  int64_t agent_id = 0;
  int64_t kernel_id = 0;
  int64_t queue_id = 0;
  int64_t stream_id = 0;
  TimeNs start = 0, end = 0;
  uint32_t private_segment_size = 0;
  uint32_t group_segment_size = 0;
  uint32_t workgroup[3] = {1, 1, 1};
  uint32_t grid[3] = {1, 1, 1};  // work-items
  int64_t correlation_id = 0;    // stored as rocpd_event.stack_id
};

struct MemoryCopyRow {
  int64_t id = 0;
  int64_t tid = 0;
  TimeNs start = 0, end = 0;
  std::string kind = "MEMORY_COPY_DEVICE_TO_DEVICE";
  int64_t dst_agent_id = 0, src_agent_id = 0;
  uint64_t dst_address = 0, src_address = 0;
  uint64_t size = 0;
  int64_t stream_id = 0;
  int64_t correlation_id = 0;
  int64_t queue_id = -1;  // < 0: not known, written as NULL (as rocprofv3 1.0.0 does)
};

struct ArgRow {
  std::string type;   // C type, e.g. "hipStream_t"
  std::string name;   // "stream", "event", ...
  std::string value;  // text, as rocprofv3 writes it (pointers as hex)
  std::string extdata_json = "{}";  // for name == "stream": {"stream_id": <rocpd stream id>}
};

struct RegionRow {
  int64_t tid = 0;
  TimeNs start = 0, end = 0;
  std::string name;      // "hipLaunchKernel", "cudaStreamWaitEvent", ...
  std::string category;  // "HIP_RUNTIME_API_EXT", "CUDA_RUNTIME_API", "MARKER_CORE_API", ...
  int64_t correlation_id = 0;
  std::vector<ArgRow> args;
};

// A memory allocation operation (rocpd_memory_allocate): rocprofv3 --scratch-memory-trace writes level
// "SCRATCH" rows (type ALLOC, FREE or RECLAIM) with the event category "SCRATCH_MEMORY".
struct MemoryAllocationRow {
  int64_t tid = 0;
  int64_t agent_id = 0;
  std::string type = "ALLOC";     // ALLOC, FREE, REALLOC, RECLAIM
  std::string level = "SCRATCH";  // REAL, VIRTUAL, SCRATCH
  TimeNs start = 0, end = 0;
  uint64_t address = 0, size = 0;
  int64_t queue_id = -1;           // < 0: NULL
  std::string extdata_json = "{}";  // scratch: {"flags": N}, the runtime's allocation flags
  std::string category = "SCRATCH_MEMORY";
  int64_t correlation_id = 0;
};

// A GPU-side barrier or signal (schema 3.0.1 rocpd_event_operation).
struct EventOperationRow {
  int64_t tid = 0;
  int64_t agent_id = 0;
  uint64_t event_obj = 0;
  int64_t queue_id = 0;
  int64_t stream_id = 0;
  TimeNs start = 0, end = 0;
  bool is_wait = false;  // WAIT or SIGNAL
  int64_t correlation_id = 0;
};

struct PmcInfoRow {
  int64_t id = 0;
  int64_t agent_id = 0;
  std::string name;
  std::string description;
  std::string block;
};

struct PmcValueRow {
  int64_t dispatch_id = 0;  // the dispatch whose event the value belongs to
  int64_t pmc_id = 0;
  double value = 0.0;
};

// Rows are buffered and written in batches, so a constraint violation (e.g. a dispatch id added twice)
// may surface on a later add_*() or on finish(). After any exception the writer must be discarded;
// its destructor then removes the partial file.
class Writer {
 public:
  // guid empty: a fresh UUIDv7 is generated for the process.
  Writer(std::string path, const NodeRow& node, const ProcessRow& process, std::string guid = {});
  ~Writer();  // without finish(), the partial file is removed and <path> is left as it was
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  const std::string& guid() const;

  void add_thread(const ThreadRow& row);
  void add_agent(const AgentRow& row);
  void add_queue(int64_t id, const std::string& name);
  void add_stream(int64_t id, const std::string& name);
  void add_code_object(int64_t id, int64_t agent_id, const std::string& uri);
  void add_kernel_symbol(const KernelSymbolRow& row);
  void add_dispatch(const DispatchRow& row);
  void add_memory_copy(const MemoryCopyRow& row);
  void add_region(const RegionRow& row);
  void add_memory_allocation(const MemoryAllocationRow& row);
  void add_event_operation(const EventOperationRow& row);
  void add_pmc_info(const PmcInfoRow& row);
  void add_pmc_value(const PmcValueRow& row);

  // Commits, creates the views, and atomically renames the file into place.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes one process of a Trace (all of its rows) as one database. Used by tests (round trip) and tools
// that transform traces.
void write_process(const Trace& trace, Index process, const std::string& path);

}  // namespace rpl::rocpd
