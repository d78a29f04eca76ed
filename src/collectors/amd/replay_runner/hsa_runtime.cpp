#include "collectors/amd/replay_runner/hsa_runtime.hpp"

#include <dlfcn.h>
#include <fmt/core.h>

#include <cstdlib>
#include <vector>

#include "support/errors.hpp"

namespace rpl::hsa_replay {
namespace {

constexpr const char* kDefaultLibrary = "libhsa-runtime64.so.1";

template <typename Fn>
void resolve(void* handle, const char* name, Fn& out, std::vector<std::string>& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!out) missing.emplace_back(name);
}

}  // namespace

std::string HsaRuntime::describe(hsa_status_t status) const {
  const char* text = nullptr;
  if (status_string && status_string(status, &text) == HSA_STATUS_SUCCESS && text)
    return fmt::format("{} (0x{:x})", text, static_cast<unsigned>(status));
  return fmt::format("HSA status 0x{:x}", static_cast<unsigned>(status));
}

HsaRuntime load_hsa_runtime() {
  HsaRuntime rt;
  const char* override_path = std::getenv("RPL_HSA_RUNTIME");
  rt.library = override_path && *override_path ? override_path : kDefaultLibrary;
  void* handle = dlopen(rt.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("cannot load the HSA runtime {} ({}); is ROCm installed? (RPL_HSA_RUNTIME names "
                            "another copy)",
                            rt.library, dlerror()));
  std::vector<std::string> missing;
  resolve(handle, "hsa_init", rt.init, missing);
  resolve(handle, "hsa_shut_down", rt.shut_down, missing);
  resolve(handle, "hsa_status_string", rt.status_string, missing);
  resolve(handle, "hsa_system_get_info", rt.system_get_info, missing);
  resolve(handle, "hsa_iterate_agents", rt.iterate_agents, missing);
  resolve(handle, "hsa_agent_get_info", rt.agent_get_info, missing);
  resolve(handle, "hsa_agent_iterate_isas", rt.agent_iterate_isas, missing);
  resolve(handle, "hsa_isa_get_info_alt", rt.isa_get_info_alt, missing);
  resolve(handle, "hsa_queue_create", rt.queue_create, missing);
  resolve(handle, "hsa_queue_destroy", rt.queue_destroy, missing);
  resolve(handle, "hsa_queue_add_write_index_scacq_screl", rt.queue_add_write_index, missing);
  resolve(handle, "hsa_queue_load_read_index_scacquire", rt.queue_load_read_index, missing);
  resolve(handle, "hsa_signal_create", rt.signal_create, missing);
  resolve(handle, "hsa_signal_destroy", rt.signal_destroy, missing);
  resolve(handle, "hsa_signal_store_screlease", rt.signal_store, missing);
  resolve(handle, "hsa_signal_wait_scacquire", rt.signal_wait, missing);
  resolve(handle, "hsa_memory_copy", rt.memory_copy, missing);
  resolve(handle, "hsa_code_object_reader_create_from_memory", rt.reader_from_memory, missing);
  resolve(handle, "hsa_code_object_reader_destroy", rt.reader_destroy, missing);
  resolve(handle, "hsa_executable_create_alt", rt.executable_create, missing);
  resolve(handle, "hsa_executable_load_agent_code_object", rt.load_agent_code_object, missing);
  resolve(handle, "hsa_executable_freeze", rt.executable_freeze, missing);
  resolve(handle, "hsa_executable_destroy", rt.executable_destroy, missing);
  resolve(handle, "hsa_executable_get_symbol_by_name", rt.get_symbol_by_name, missing);
  resolve(handle, "hsa_executable_iterate_agent_symbols", rt.iterate_agent_symbols, missing);
  resolve(handle, "hsa_executable_symbol_get_info", rt.symbol_get_info, missing);
  resolve(handle, "hsa_amd_agent_iterate_memory_pools", rt.iterate_pools, missing);
  resolve(handle, "hsa_amd_memory_pool_get_info", rt.pool_get_info, missing);
  resolve(handle, "hsa_amd_memory_pool_allocate", rt.pool_allocate, missing);
  resolve(handle, "hsa_amd_memory_pool_free", rt.pool_free, missing);
  resolve(handle, "hsa_amd_agents_allow_access", rt.agents_allow_access, missing);
  resolve(handle, "hsa_amd_profiling_set_profiler_enabled", rt.set_profiler_enabled, missing);
  resolve(handle, "hsa_amd_profiling_get_dispatch_time", rt.get_dispatch_time, missing);
  if (!missing.empty())
    throw Error(ExitCode::ProfilerFailed, fmt::format("the HSA runtime {} lacks {} entries this runner needs, e.g. {}",
                                                      rt.library, missing.size(), missing.front()));
  std::vector<std::string> optional_missing;
  resolve(handle, "hsa_amd_memory_fill", rt.memory_fill, optional_missing);
  resolve(handle, "hsa_amd_vmem_address_reserve", rt.vmem.address_reserve, missing);
  resolve(handle, "hsa_amd_vmem_address_free", rt.vmem.address_free, missing);
  resolve(handle, "hsa_amd_vmem_handle_create", rt.vmem.handle_create, missing);
  resolve(handle, "hsa_amd_vmem_handle_release", rt.vmem.handle_release, missing);
  resolve(handle, "hsa_amd_vmem_map", rt.vmem.map, missing);
  resolve(handle, "hsa_amd_vmem_unmap", rt.vmem.unmap, missing);
  resolve(handle, "hsa_amd_vmem_set_access", rt.vmem.set_access, missing);
  if (!missing.empty())
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("the HSA runtime {} has no virtual-memory API ({} missing): VA-faithful replay needs "
                            "hsa_amd_vmem_address_reserve and its family, in ROCm 6.0 or later",
                            rt.library, missing.front()));
  return rt;
}

}  // namespace rpl::hsa_replay
