#pragma once
// Converts the CUDA collector's spill files into rocpd databases (one per process), so NVIDIA traces are
// read like rocprofv3's. CUPTI-free: used by the collector at exit, and by `rocm-perf` for the spills that
// crashed or killed children leave behind.
//
// Mapping (details in docs/cuda-collector.md):
// - agents: CPU agent id 0; CUDA device d is GPU agent id d+1 (absolute index d+1, logical/type index d),
//   name "sm_XY", extdata with cu_count = SMs, wave_front_size = warp size, simd_per_cu = 4, ...
// - dispatches: grid = gridDim*blockDim work-items (HSA convention), workgroup = blockDim, group segment =
//   static + dynamic shared memory, private segment = local memory per thread; queue id = stream id =
//   CUPTI stream id; correlation id = the launching API call's CUPTI correlation id.
// - kernel symbols: one per (name, registers, static shared, local memory); arch_vgpr_count = registers
//   per thread, group_segment_size = static shared memory.
// - regions: CUDA runtime / driver API records (category CUDA_RUNTIME_API / CUDA_DRIVER_API), names
//   without CUPTI's version suffixes ("cudaLaunchKernel", not "cudaLaunchKernel_v7000"); the
//   synchronisation calls carry "stream" and "event" args taken from CUPTI's SYNCHRONIZATION and
//   CUDA_EVENT records with the same correlation id.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rpl::collectors {

struct SpillConvertOptions {
  std::string db_path;        // empty: <spill's directory>/<pid>_results.db
  bool remove_spill = true;   // delete the spill once the database is complete
};

// Converts one spill file; returns the database path. Throws rpl::Error: InputMissing / InputCorrupt for
// the spill, OutputFailed for the database. A truncated spill (crash) is converted as far as it goes.
std::string convert_spill(const std::string& spill_path, const SpillConvertOptions& options = {});

// Converts every *.rplspill below `dir` (recursively) left by processes that did not convert their own,
// skipping spills of processes still running. Failures are logged and skipped. Returns the databases.
std::vector<std::string> convert_leftover_spills(const std::string& dir);

// "<trace_dir>/<hostname>/<pid>.rplspill": where the collector writes a process's spill.
std::string spill_path_for(const std::string& trace_dir, const std::string& hostname, int64_t pid);

// CUPTI's callback name without version and per-thread-stream suffixes or the leading "__" of internal
// entry points: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel", "cudaStreamSynchronize_ptsz_v7000" ->
// "cudaStreamSynchronize", "cuMemcpyHtoDAsync_v2" -> "cuMemcpyHtoDAsync", "__cudaLaunchKernel" -> "cudaLaunchKernel".
std::string normalize_cuda_api_name(std::string_view cupti_name);

// Whether a runtime/driver API (normalized name) creates or observes a dependency between host and GPU
// work: launches, graph launches, copies and fills, stream/event/device synchronisation, event record and
// stream-wait-event. The collector's default API mode traces these and nothing else.
bool is_cuda_dependency_api(std::string_view normalized_name);

}  // namespace rpl::collectors
