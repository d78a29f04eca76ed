#pragma once
// The HSA runtime as the replay runner uses it: loaded with dlopen and resolved with dlsym, so the runner
// starts (and reports clearly) on a machine without ROCm, and the virtual-memory entries that Debian's
// packaged headers lack are found at run time. UNVALIDATED ON AMD HARDWARE.
#include <string>

#include "collectors/amd/capture_injection/hsa_newer_api.hpp"

namespace rpl::hsa_replay {

struct HsaRuntime {
  std::string library;  // what was loaded (path or soname)

  decltype(hsa_init)* init = nullptr;
  decltype(hsa_shut_down)* shut_down = nullptr;
  decltype(hsa_status_string)* status_string = nullptr;
  decltype(hsa_system_get_info)* system_get_info = nullptr;
  decltype(hsa_iterate_agents)* iterate_agents = nullptr;
  decltype(hsa_agent_get_info)* agent_get_info = nullptr;
  decltype(hsa_agent_iterate_isas)* agent_iterate_isas = nullptr;
  decltype(hsa_isa_get_info_alt)* isa_get_info_alt = nullptr;
  decltype(hsa_queue_create)* queue_create = nullptr;
  decltype(hsa_queue_destroy)* queue_destroy = nullptr;
  decltype(hsa_queue_add_write_index_scacq_screl)* queue_add_write_index = nullptr;
  decltype(hsa_queue_load_read_index_scacquire)* queue_load_read_index = nullptr;
  decltype(hsa_signal_create)* signal_create = nullptr;
  decltype(hsa_signal_destroy)* signal_destroy = nullptr;
  decltype(hsa_signal_store_screlease)* signal_store = nullptr;
  decltype(hsa_signal_wait_scacquire)* signal_wait = nullptr;
  decltype(hsa_memory_copy)* memory_copy = nullptr;
  decltype(hsa_code_object_reader_create_from_memory)* reader_from_memory = nullptr;
  decltype(hsa_code_object_reader_destroy)* reader_destroy = nullptr;
  decltype(hsa_executable_create_alt)* executable_create = nullptr;
  decltype(hsa_executable_load_agent_code_object)* load_agent_code_object = nullptr;
  decltype(hsa_executable_freeze)* executable_freeze = nullptr;
  decltype(hsa_executable_destroy)* executable_destroy = nullptr;
  decltype(hsa_executable_get_symbol_by_name)* get_symbol_by_name = nullptr;
  decltype(hsa_executable_iterate_agent_symbols)* iterate_agent_symbols = nullptr;
  decltype(hsa_executable_symbol_get_info)* symbol_get_info = nullptr;
  decltype(hsa_amd_agent_iterate_memory_pools)* iterate_pools = nullptr;
  decltype(hsa_amd_memory_pool_get_info)* pool_get_info = nullptr;
  decltype(hsa_amd_memory_pool_allocate)* pool_allocate = nullptr;
  decltype(hsa_amd_memory_pool_free)* pool_free = nullptr;
  decltype(hsa_amd_agents_allow_access)* agents_allow_access = nullptr;
  decltype(hsa_amd_profiling_set_profiler_enabled)* set_profiler_enabled = nullptr;
  decltype(hsa_amd_profiling_get_dispatch_time)* get_dispatch_time = nullptr;
  decltype(hsa_amd_memory_fill)* memory_fill = nullptr;  // optional: restores by fill fall back to copies

  // ROCm >= 6.0 (declared in hsa_newer_api.hpp).
  hsa_newer::VmemApi vmem;

  // "HSA_STATUS_ERROR_INVALID_ARGUMENT (...)": the runtime's own text where it has one.
  std::string describe(hsa_status_t status) const;
};

// The runtime named by $RPL_HSA_RUNTIME, else libhsa-runtime64.so.1 from the loader's search path. Throws
// rpl::Error(ProfilerFailed) naming the library when it cannot be loaded, and when it lacks an entry this
// runner needs (a runtime older than ROCm 6.0 has no hsa_amd_vmem_*: said so explicitly). The library stays
// loaded for the life of the process.
HsaRuntime load_hsa_runtime();

}  // namespace rpl::hsa_replay
