#pragma once
// State shared by the HSA capture tool's interceptors: configuration, the runtime's own entry points
// (saved before the API table is patched), and what the tool has learnt about the application: live
// allocations, code objects, kernels, queues. UNVALIDATED ON AMD HARDWARE.
#include <fmt/core.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/amd/dispatch_selector.hpp"
#include "collectors/amd/live_allocations.hpp"
#include "collectors/amd/capture_injection/hsa_newer_api.hpp"

namespace rpl::hsa_capture {

// From the environment `rocm-perf capture` sets (see docs/capture-replay-amd.md).
struct Config {
  std::string kernel_regex;          // RPL_CAPTURE_KERNEL (default: every kernel matches)
  uint64_t dispatch_index = 1;       // RPL_CAPTURE_DISPATCH, K (1-based)
  std::filesystem::path directory;   // RPL_CAPTURE_DIR (required)
  double drain_timeout_s = 60;       // RPL_CAPTURE_DRAIN_TIMEOUT_S
  std::vector<std::string> command;  // RPL_CAPTURE_COMMAND, a JSON array (recorded in the manifest)
  bool exit_after = false;           // RPL_CAPTURE_EXIT=1: end the process (status 0) once captured
  bool verbose = false;              // RPL_CAPTURE_VERBOSE=1
};
// Throws rpl::Error(Usage) naming the variable and value that are wrong.
Config config_from_environment();

// The runtime's entries the tool calls. Patched entries are saved here; the rest are read from the live
// tables (which outlive the tool).
struct RuntimeFunctions {
  CoreApiTable* core = nullptr;
  void* amd_ext = nullptr;  // the AMD extension table, addressed through hsa_newer::AmdExtSlots
  const hsa_newer::AmdExtSlots* slots = nullptr;

  decltype(hsa_queue_create)* queue_create = nullptr;
  decltype(hsa_queue_destroy)* queue_destroy = nullptr;
  decltype(hsa_memory_allocate)* memory_allocate = nullptr;
  decltype(hsa_memory_free)* memory_free = nullptr;
  decltype(hsa_code_object_reader_create_from_memory)* reader_from_memory = nullptr;
  decltype(hsa_code_object_reader_create_from_file)* reader_from_file = nullptr;
  decltype(hsa_code_object_reader_destroy)* reader_destroy = nullptr;
  decltype(hsa_executable_load_agent_code_object)* load_agent_code_object = nullptr;
  decltype(hsa_executable_destroy)* executable_destroy = nullptr;

  decltype(hsa_amd_agent_iterate_memory_pools)* iterate_pools = nullptr;
  decltype(hsa_amd_memory_pool_get_info)* pool_get_info = nullptr;
  decltype(hsa_amd_memory_pool_allocate)* pool_allocate = nullptr;
  decltype(hsa_amd_memory_pool_free)* pool_free = nullptr;
  decltype(hsa_amd_memory_lock)* memory_lock = nullptr;
  decltype(hsa_amd_memory_lock_to_pool)* memory_lock_to_pool = nullptr;
  decltype(hsa_amd_memory_unlock)* memory_unlock = nullptr;
  decltype(hsa_amd_memory_async_copy)* async_copy = nullptr;
  decltype(hsa_amd_memory_async_copy_rect)* async_copy_rect = nullptr;
  hsa_newer::AsyncCopyOnEngineFn async_copy_on_engine = nullptr;
  decltype(hsa_amd_signal_async_handler)* signal_async_handler = nullptr;
  decltype(hsa_amd_queue_intercept_create)* queue_intercept_create = nullptr;
  decltype(hsa_amd_queue_intercept_register)* queue_intercept_register = nullptr;

  hsa_newer::VmemApi vmem;  // set_access is not intercepted
};

// A code object as the application handed it to the loader, copied (the application may free it).
struct CodeObjectBytes {
  std::vector<std::byte> bytes;
  std::string origin;  // "memory" or "file descriptor N"
};

struct KernelInfo {
  std::string symbol_name;  // as the loader names it: "_Z7add_onePfi.kd"
  std::string mangled;      // without ".kd"
  std::string demangled;
  uint32_t kernarg_size = 0, kernarg_alignment = 0;
  uint32_t group_segment_size = 0, private_segment_size = 0;  // static sizes from the symbol
  bool dynamic_callstack = false;
  std::shared_ptr<const CodeObjectBytes> code_object;  // null when it was loaded in a way not intercepted
  uint64_t executable = 0, agent = 0;
};

struct GlobalVariable {
  std::string name;
  uint64_t address = 0, size = 0;
  uint64_t executable = 0, agent = 0;
  std::shared_ptr<const CodeObjectBytes> code_object;
};

// What the replay needs to know of a memory pool: where its memory lives and its allocation granule. Found
// by walking every agent's pools once (cached); Unknown / 0 when the runtime cannot say.
struct PoolInfo {
  collectors::amd::Placement placement = collectors::amd::Placement::Unknown;
  uint64_t granule = 0;
  hsa_agent_t agent{};
};

// One application queue the tool intercepts, with the signal that counts its batches still in flight.
struct QueueState {
  hsa_queue_t* queue = nullptr;
  hsa_agent_t agent{};
  hsa_signal_t inflight{};  // +1 per forwarded batch, -1 by the barrier packet written after it
};

struct ToolState {
  Config config;
  bool capture_enabled = false;
  RuntimeFunctions rt;

  // Bookkeeping: allocations, code objects, kernels, queues.
  std::mutex mutex;
  collectors::amd::LiveAllocations allocations;
  std::unordered_map<uint64_t, std::shared_ptr<const CodeObjectBytes>> readers;  // reader handle ->
  std::unordered_map<uint64_t, KernelInfo> kernels;                             // kernel_object ->
  std::vector<GlobalVariable> globals;
  std::unordered_map<const hsa_queue_t*, std::unique_ptr<QueueState>> queues;
  uint64_t unexplained_mappings = 0;
  std::unordered_map<uint64_t, PoolInfo> pools;  // pool handle -> (filled on first use)

  // The capture: selection, then the exclusive section during which no other submission proceeds.
  std::mutex capture_mutex;
  std::optional<collectors::amd::DispatchSelector> selector;
  // The gate: submissions in progress, and whether a capture holds every other submission back.
  std::mutex gate_mutex;
  std::condition_variable gate_cv;
  bool capturing = false;
  int submitting = 0;
  std::atomic<bool> finished{false};  // capture written or abandoned: interception stops adding work
  bool not_captured_reported = false;

  // SDMA copies submitted and not yet complete (asynchronous copies are outside the AQL queues).
  std::mutex copies_mutex;
  std::condition_variable copies_cv;
  uint64_t copies_in_flight = 0;
};

ToolState& state();

template <typename... Args>
void report(fmt::format_string<Args...> f, Args&&... args) {
  fmt::print(stderr, "rocm-perf capture (hsa): {}\n", fmt::format(f, std::forward<Args>(args)...));
}

PoolInfo pool_info(hsa_amd_memory_pool_t pool);

// <dir>/capture_status.txt, which `rocm-perf capture` shows when there is no manifest ("failed: ...",
// "not captured: ...").
void write_status_file(const std::filesystem::path& dir, const std::string& text);
// At exit / OnUnload: says why nothing was captured, when that is so.
void report_if_not_captured();

}  // namespace rpl::hsa_capture
