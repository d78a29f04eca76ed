// librpl_cuda_capture.so: the CUDA capture injection library, loaded by the CUDA driver through
// CUDA_INJECTION64_PATH (nothing is recompiled, relinked or preloaded). `rocm-perf capture` sets:
//   RPL_CAPTURE_DIR       the capture directory to write
//   RPL_CAPTURE_KERNEL    regex (RE2 syntax) over mangled and demangled kernel names; default: any kernel
//   RPL_CAPTURE_DISPATCH  K: capture the K-th launch of the first kernel that matches (default 1)
//   RPL_CAPTURE_COMMAND   the application's command line, as a JSON array (recorded in the manifest)
//   RPL_CAPTURE_EXIT      1: end the process (status 0) right after the capture is written
//   RPL_CAPTURE_VERBOSE   1: report modules, allocations and the capture on stderr
//   RPL_CAPTURE_ALL       1: sweep: capture launch K of EVERY kernel that matches, each into <dir>/kNNNN
//                         (capture/capture_sweep.hpp), outcomes appended to <dir>/sweep_log.jsonl
//   RPL_CAPTURE_MAX_KERNELS  N: in a sweep, capture at most N kernels (0: no limit)
// CUPTI callbacks: the module-loaded resource callback keeps matching cubins (of any linkage; fat binaries are
// opened); driver API callbacks record which call loaded each module and library (load_tracking.hpp), track live
// allocations (cuMemAlloc*, pitched, stream-ordered and pool allocations, VMM mappings, managed memory) and
// watch launches (cuLaunchKernel, cuLaunchKernelEx, cooperative; runtime launches reach these too); runtime API
// callbacks track the runtime's allocations as well (the two views agree; either alone suffices).
// When nothing was captured, the reason is written to <dir>/capture_status.txt at exit.
#include <cupti.h>  // brings generated_cuda_meta.h: the driver API parameter structs
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "capture/capture_sweep.hpp"
#include "collectors/nvidia/cuda_fatbin.hpp"
#include "capture/live_regions.hpp"
#include "collectors/nvidia/cuda_driver/driver_launch.hpp"
#include "collectors/nvidia/capture_injection/launch_snapshot.hpp"
#include "collectors/nvidia/capture_injection/load_tracking.hpp"
#include "collectors/nvidia/capture_injection/module_registry.hpp"

namespace rpl::cuda_capture {
namespace {

struct State {
  CaptureConfig config;
  std::optional<UserRegex> pattern;
  bool exit_after = false;
  capture::LiveRegions live;
  std::unique_ptr<ModuleRegistry> modules;
  collectors::nvidia::CodeLoadBook loads;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool sweep = false;
  uint64_t max_kernels = 0;
  // Held by the thread whose launch is being captured, from API enter to exit: other threads' launches wait,
  // so that nothing else runs between the two snapshots.
  std::mutex launch_gate;

  std::mutex mutex;                   // guards what follows
  struct Seen {
    CUfunction function = nullptr;
    std::string mangled;
    bool matches = false;
  };
  std::unordered_map<void*, Seen> handles;  // launched handle (CUfunction or CUkernel) -> what it is
  std::string chosen;                 // the first matching kernel's mangled name
  uint64_t launches_of_chosen = 0;
  uint64_t skipped_in_stream_capture = 0;
  std::unique_ptr<LaunchSnapshot> snapshot;
  std::unique_ptr<CaptureConfig> snapshot_config;  // the sweep's per-kernel configuration
  std::string snapshot_kernel;
  std::unique_ptr<capture::SweepBook> book;
  uint32_t pending_correlation = 0;   // the launch being captured, between API enter and exit
  bool done = false;
  std::string failure;
};

State* g_state = nullptr;  // never destroyed: CUPTI may call back during static destruction
thread_local bool t_inside = false;  // our own driver calls do not count as the application's

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

void write_status(const std::string& text) {
  std::ofstream(g_state->config.dir + "/capture_status.txt") << text << "\n";
}

void fail(const std::string& why) {
  g_state->failure = why;
  g_state->done = true;
  std::fprintf(stderr, "rpl-capture: capture failed: %s\n", why.c_str());
  std::error_code ec;
  std::filesystem::create_directories(g_state->config.dir, ec);
  write_status("failed: " + why);
}

// A launched handle: a CUkernel (runtime launches since CUDA 12) or a CUfunction.
State::Seen& identify(void* handle) {
  auto it = g_state->handles.find(handle);
  if (it != g_state->handles.end()) return it->second;
  State::Seen s;
  CUfunction fn = nullptr;
  if (cuKernelGetFunction(&fn, static_cast<CUkernel>(handle)) == CUDA_SUCCESS && fn) {
    // A CUkernel (context-independent loading: cuLibrary*, the CUDA 12+ runtime): tie it to its library.
    CUlibrary library = nullptr;
    CUmodule module = nullptr;
    if (cuKernelGetLibrary(&library, static_cast<CUkernel>(handle)) == CUDA_SUCCESS && library)
      g_state->loads.library_owns(library, handle);
    cuFuncGetModule(&module, fn);
    g_state->loads.kernel_function(handle, fn, module);
  } else {
    fn = static_cast<CUfunction>(handle);
  }
  s.function = fn;
  const char* name = nullptr;
  if (cuFuncGetName(&name, fn) == CUDA_SUCCESS && name) s.mangled = name;
  s.matches = !s.mangled.empty() && kernel_name_matches(*g_state->pattern, s.mangled);
  return g_state->handles.emplace(handle, std::move(s)).first->second;
}

void append_sweep_log() {
  std::ofstream out(g_state->config.dir + "/" + capture::kSweepLogName, std::ios::app);
  for (const auto& e : g_state->book->take_decided()) out << capture::sweep_entry_json(e).dump() << "\n";
}

// The end of one kernel's capture in a sweep: its outcome logged, a failed capture's directory removed.
void finish_sweep_kernel(bool captured, const std::string& reason) {
  uint64_t bytes = captured && g_state->snapshot ? g_state->snapshot->region_bytes() : 0;
  if (!captured && g_state->snapshot_config) {
    std::error_code ec;
    std::filesystem::remove_all(g_state->snapshot_config->dir, ec);
  }
  g_state->book->finish(g_state->snapshot_kernel, captured, reason, bytes);
  append_sweep_log();
  g_state->snapshot.reset();
  g_state->snapshot_config.reset();
  g_state->snapshot_kernel.clear();
}

// Before a sweep's capture: refuse where the file system could not hold both snapshots of every live region.
std::string disk_shortfall(const std::string& dir) {
  std::error_code ec;
  auto space = std::filesystem::space(dir, ec);
  uint64_t need = 2 * g_state->live.total_bytes() + (uint64_t{1} << 30);
  if (ec || space.available >= need) return {};
  return fmt::format("only {:.1f} GiB free under {}; capturing {:.1f} GiB of live memory twice needs up to {:.1f} GiB",
                     double(space.available) / (1ull << 30), dir, double(g_state->live.total_bytes()) / (1ull << 30),
                     double(need) / (1ull << 30));
}

void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  collectors::DriverLaunch d;
  if (!collectors::decode_driver_launch(cbid, cb, d)) return;
  LaunchInfo launch;
  launch.grid = d.grid;
  launch.block = d.block;
  launch.shared_bytes = d.shared_bytes;
  launch.kernel_params = d.kernel_params;
  launch.extra = d.extra;
  launch.attributes = d.attributes;
  launch.attribute_count = d.attribute_count;
  launch.cooperative = d.cooperative;
  launch.api = d.api;
  void* handle = d.handle;
  CUstream stream = d.stream;
  std::unique_lock<std::mutex> gate(g_state->launch_gate);  // waits while another thread's launch is captured
  std::lock_guard<std::mutex> lock(g_state->mutex);
  if (g_state->done || g_state->snapshot) return;
  State::Seen& seen = identify(handle);
  if (!seen.matches) return;
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
  bool in_graph = cuStreamIsCapturing(stream, &capturing) == CUDA_SUCCESS && capturing != CU_STREAM_CAPTURE_STATUS_NONE;
  std::unique_ptr<CaptureConfig> kernel_config;
  if (g_state->sweep) {
    if (g_state->book->on_launch(seen.mangled, in_graph) != capture::SweepBook::Verdict::Capture) {
      append_sweep_log();  // a kernel skipped for the budget is decided here
      return;
    }
    kernel_config = std::make_unique<CaptureConfig>(g_state->config);
    kernel_config->dir = g_state->config.dir + "/" + g_state->book->entry(seen.mangled)->dir;
    kernel_config->kernel_regex = seen.mangled;
    g_state->snapshot_kernel = seen.mangled;
    if (std::string shortfall = disk_shortfall(g_state->config.dir); !shortfall.empty()) {
      finish_sweep_kernel(false, shortfall);
      return;
    }
  } else {
    if (g_state->chosen.empty()) g_state->chosen = seen.mangled;
    if (seen.mangled != g_state->chosen) return;
    if (in_graph) {
      ++g_state->skipped_in_stream_capture;  // recorded into a CUDA graph, not run now: cannot be captured
      return;
    }
    if (++g_state->launches_of_chosen < g_state->config.dispatch) return;
  }
  launch.function = seen.function;
  launch.mangled_name = seen.mangled;
  const CaptureConfig& config = kernel_config ? *kernel_config : g_state->config;
  auto snapshot = std::make_unique<LaunchSnapshot>(config, g_state->live, *g_state->modules, g_state->loads);
  g_state->snapshot_config = std::move(kernel_config);
  try {
    snapshot->before(launch);
  } catch (const std::exception& e) {
    if (g_state->sweep) {
      std::fprintf(stderr, "rpl-capture: %s not captured: %s\n", seen.mangled.c_str(), e.what());
      finish_sweep_kernel(false, e.what());
    } else {
      fail(e.what());
    }
    return;
  }
  g_state->snapshot = std::move(snapshot);
  g_state->pending_correlation = cb->correlationId;
  gate.release();  // held until this launch's API exit (same thread)
}

void on_launch_exit(const CUpti_CallbackData* cb) {
  std::unique_lock<std::mutex> lock(g_state->mutex);
  if (!g_state->snapshot || g_state->done || cb->correlationId != g_state->pending_correlation) return;
  std::unique_lock<std::mutex> gate(g_state->launch_gate, std::adopt_lock);  // taken at this launch's API enter
  CUresult result = *static_cast<const CUresult*>(cb->functionReturnValue);
  try {
    g_state->snapshot->after(result);
  } catch (const std::exception& e) {
    if (g_state->sweep) {
      std::fprintf(stderr, "rpl-capture: %s not captured: %s\n", g_state->snapshot_kernel.c_str(), e.what());
      finish_sweep_kernel(false, e.what());
    } else {
      fail(e.what());
    }
    return;
  }
  const std::string& kernel = g_state->sweep ? g_state->snapshot_kernel : g_state->chosen;
  const std::string& dir = g_state->snapshot_config ? g_state->snapshot_config->dir : g_state->config.dir;
  std::fprintf(stderr, "rpl-capture: captured launch %llu of %s (%zu regions, %.1f MiB) into %s\n",
               (unsigned long long)g_state->config.dispatch, kernel.c_str(), g_state->snapshot->region_count(),
               double(g_state->snapshot->region_bytes()) / (1 << 20), dir.c_str());
  if (g_state->sweep) {
    finish_sweep_kernel(true, "");
    if (!g_state->exit_after || !g_state->book->budget_spent()) return;
  } else {
    g_state->done = true;
  }
  if (g_state->exit_after) {
    if (g_state->sweep) {
      for (const auto& e : g_state->book->close())
        std::ofstream(g_state->config.dir + "/" + capture::kSweepLogName, std::ios::app) << capture::sweep_entry_json(e).dump() << "\n";
    }
    std::fflush(nullptr);
    _exit(0);
  }
}

// Allocation tracking, at API exit (the pointer exists only once the call succeeded).
void on_memory_exit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  const void* params = cb->functionParams;
  auto& live = g_state->live;
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
      auto* p = static_cast<const cuMemAlloc_v2_params*>(params);
      live.add(*p->dptr, p->bytesize, "device");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
      auto* p = static_cast<const cuMemAllocPitch_v2_params*>(params);
      live.add(*p->dptr, uint64_t(*p->pPitch) * p->Height, "pitched");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
      auto* p = static_cast<const cuMemAllocManaged_params*>(params);
      live.add(*p->dptr, p->bytesize, "managed");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
      auto* p = static_cast<const cuMemAllocAsync_params*>(params);
      live.add(*p->dptr, p->bytesize, "stream_ordered");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
      auto* p = static_cast<const cuMemAllocFromPoolAsync_params*>(params);
      live.add(*p->dptr, p->bytesize, "stream_ordered");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      auto* p = static_cast<const cuMemMap_params*>(params);
      live.add(p->ptr, p->size, "virtual");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
      live.remove(static_cast<const cuMemFree_v2_params*>(params)->dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
      live.remove(static_cast<const cuMemFreeAsync_params*>(params)->dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
      auto* p = static_cast<const cuMemUnmap_params*>(params);
      live.remove_within(p->ptr, p->size);
      break;
    }
    default: break;
  }
}

// The same, from the runtime's side: where the driver-level callbacks already saw an allocation, adding it again
// replaces it with itself and a second free finds nothing, so both views together are safe.
void on_runtime_memory_exit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  const void* params = cb->functionParams;
  auto& live = g_state->live;
  auto address = [](void* p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); };
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
      auto* p = static_cast<const cudaMalloc_v3020_params*>(params);
      live.add(address(*p->devPtr), p->size, "device");
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
      auto* p = static_cast<const cudaMallocPitch_v3020_params*>(params);
      live.add(address(*p->devPtr), uint64_t(*p->pitch) * p->height, "pitched");
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
      auto* p = static_cast<const cudaMallocManaged_v6000_params*>(params);
      live.add(address(*p->devPtr), p->size, "managed");
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
      auto* p = static_cast<const cudaMallocAsync_v11020_params*>(params);
      live.add(address(*p->devPtr), p->size, "stream_ordered");
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020: {
      auto* p = static_cast<const cudaMallocFromPoolAsync_v11020_params*>(params);
      live.add(address(*p->ptr), p->size, "stream_ordered");
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
      live.remove(address(static_cast<const cudaFree_v3020_params*>(params)->devPtr));
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
      live.remove(address(static_cast<const cudaFreeAsync_v11020_params*>(params)->devPtr));
      break;
    default: break;
  }
}

bool is_launch(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: return true;
    default: return false;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (!g_state) return;
  // Modules are always recorded, also those our own calls load (cuFuncLoad during a capture).
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    auto* rd = static_cast<const CUpti_ResourceData*>(data);
    auto* m = static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor);
    bool fatbin = m && m->pCubin && m->cubinSize >= 4 &&
                  collectors::nvidia::classify_code_image({reinterpret_cast<const std::byte*>(m->pCubin), 4}) == collectors::nvidia::CodeImageKind::Fatbin;
    if (fatbin && g_state->modules->arch() == 0) {
      // The device's architecture, to pick a fat binary's member (the module's context, else device 0); asked
      // only when a fat binary comes (a plain cubin needs no driver call here).
      g_state->modules->set_arch(current_compute_capability(true));
    }
    if (m)
      g_state->modules->on_module_loaded(m->moduleId, m->pCubin, m->cubinSize, g_state->config.verbose);
    return;
  }
  if (t_inside) return;
  t_inside = true;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
    bool ok = cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
              *static_cast<const CUresult*>(cb->functionReturnValue) == CUDA_SUCCESS;
    if (is_launch(cbid)) {
      if (cb->callbackSite == CUPTI_API_ENTER) on_launch_enter(cbid, cb);
      else on_launch_exit(cb);
    } else if (ok && !on_load_exit(cbid, cb, g_state->loads)) {
      on_memory_exit(cbid, cb);
    }
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
        *static_cast<const cudaError_t*>(cb->functionReturnValue) == cudaSuccess)
      on_runtime_memory_exit(cbid, cb);
  }
  t_inside = false;
}

void at_exit() {
  if (!g_state) return;
  std::lock_guard<std::mutex> lock(g_state->mutex);
  if (g_state->sweep) {
    auto rest = g_state->book->close();
    std::ofstream out(g_state->config.dir + "/" + capture::kSweepLogName, std::ios::app);
    for (const auto& e : rest) out << capture::sweep_entry_json(e).dump() << "\n";
    std::fprintf(stderr, "rpl-capture: sweep: %llu kernel(s) attempted\n", (unsigned long long)g_state->book->attempted());
    return;
  }
  if (g_state->done) return;
  std::string why;
  if (g_state->chosen.empty())
    why = fmt::format("no launched kernel matched /{}/ ({} kernels launched)", g_state->config.kernel_regex,
                      g_state->handles.size());
  else
    why = fmt::format("{} was launched {} time(s), fewer than the {} asked for{}", g_state->chosen,
                      g_state->launches_of_chosen, g_state->config.dispatch,
                      g_state->skipped_in_stream_capture
                          ? fmt::format(" ({} more inside CUDA graph stream capture, not capturable)",
                                        g_state->skipped_in_stream_capture)
                          : std::string());
  std::error_code ec;
  std::filesystem::create_directories(g_state->config.dir, ec);
  write_status("not captured: " + why);
  std::fprintf(stderr, "rpl-capture: nothing captured: %s\n", why.c_str());
}

}  // namespace
}  // namespace rpl::cuda_capture

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  using namespace rpl::cuda_capture;
  if (g_state) return 1;
  auto* s = new State();
  const char* dir = env("RPL_CAPTURE_DIR");
  if (!dir) {
    std::fprintf(stderr, "rpl-capture: RPL_CAPTURE_DIR is not set; capture disabled\n");
    return 1;
  }
  s->config.dir = dir;
  s->config.kernel_regex = env("RPL_CAPTURE_KERNEL") ? env("RPL_CAPTURE_KERNEL") : ".*";
  try {
    s->pattern.emplace(s->config.kernel_regex, "RPL_CAPTURE_KERNEL");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpl-capture: RPL_CAPTURE_KERNEL=%s is not a valid regex: %s\n", s->config.kernel_regex.c_str(), e.what());
    return 1;
  }
  if (const char* k = env("RPL_CAPTURE_DISPATCH")) s->config.dispatch = std::max(1ull, std::strtoull(k, nullptr, 10));
  if (const char* c = env("RPL_CAPTURE_COMMAND")) {
    auto j = nlohmann::json::parse(c, nullptr, false);
    if (j.is_array())
      for (const auto& a : j)
        if (a.is_string()) s->config.command.push_back(a.get<std::string>());
  }
  s->exit_after = env("RPL_CAPTURE_EXIT") && std::string(env("RPL_CAPTURE_EXIT")) == "1";
  s->config.verbose = env("RPL_CAPTURE_VERBOSE") && std::string(env("RPL_CAPTURE_VERBOSE")) == "1";
  s->modules = std::make_unique<ModuleRegistry>(&*s->pattern);
  s->sweep = env("RPL_CAPTURE_ALL") && std::string(env("RPL_CAPTURE_ALL")) == "1";
  if (const char* n = env("RPL_CAPTURE_MAX_KERNELS")) s->max_kernels = std::strtoull(n, nullptr, 10);
  s->book = std::make_unique<rpl::capture::SweepBook>(s->max_kernels, s->config.dispatch);

  if (cuptiSubscribe(&s->subscriber, on_callback, nullptr) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "rpl-capture: cuptiSubscribe failed (another CUPTI tool attached?); capture disabled\n");
    return 1;
  }
  cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
                              CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged, CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
                              CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
                              CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemMap,
                              CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
                              CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz, CUPTI_DRIVER_TRACE_CBID_cuMemUnmap})
    cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  for (CUpti_CallbackId id : load_callback_ids()) cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020})
    cuptiEnableCallback(1, s->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
  g_state = s;
  std::atexit(at_exit);
  if (s->config.verbose)
    std::fprintf(stderr, "rpl-capture: capturing launch %llu of the first kernel matching /%s/ into %s\n",
                 (unsigned long long)s->config.dispatch, s->config.kernel_regex.c_str(), s->config.dir.c_str());
  return 1;
}
