#pragma once
// The replacements the capture tool installs in the HSA API table. Each calls the runtime's own entry
// first and records what succeeded; none lets an exception reach the runtime. UNVALIDATED ON AMD HARDWARE.
#include <functional>
#include <string>

#include "collectors/amd/capture_injection/tool_state.hpp"

namespace rpl::hsa_capture {

// ---- memory (intercept_memory.cpp) ----
hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr);
hsa_status_t pool_free(void* ptr);
hsa_status_t memory_allocate(hsa_region_t region, size_t size, void** ptr);
hsa_status_t memory_free(void* ptr);
hsa_status_t memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent, void** agent_ptr);
hsa_status_t memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                 hsa_amd_memory_pool_t pool, uint32_t flags, void** agent_ptr);
hsa_status_t memory_unlock(void* host_ptr);
hsa_status_t vmem_address_reserve(void** va, size_t size, uint64_t address, uint64_t flags);
hsa_status_t vmem_address_free(void* va, size_t size);
hsa_status_t vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size, hsa_newer::MemoryType type,
                                uint64_t flags, hsa_newer::VmemAllocHandle* handle);
hsa_status_t vmem_handle_release(hsa_newer::VmemAllocHandle handle);
hsa_status_t vmem_map(void* va, size_t size, size_t in_offset, hsa_newer::VmemAllocHandle handle, uint64_t flags);
hsa_status_t vmem_unmap(void* va, size_t size);

// ---- asynchronous copies (intercept_memory.cpp): counted until their completion signal fires ----
hsa_status_t async_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                        uint32_t num_dep_signals, const hsa_signal_t* dep_signals, hsa_signal_t completion_signal);
hsa_status_t async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                             const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset, const hsa_dim3_t* range,
                             hsa_agent_t copy_agent, hsa_amd_copy_direction_t dir, uint32_t num_dep_signals,
                             const hsa_signal_t* dep_signals, hsa_signal_t completion_signal);
hsa_status_t async_copy_on_engine(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                                  size_t size, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                  hsa_signal_t completion_signal, hsa_newer::SdmaEngineId engine_id,
                                  bool force_copy_on_sdma);
// Waits until every counted copy has completed; false on timeout.
bool wait_for_copies(double timeout_s);

// ---- code objects and kernels (intercept_code_objects.cpp) ----
hsa_status_t reader_create_from_memory(const void* code_object, size_t size, hsa_code_object_reader_t* reader);
hsa_status_t reader_create_from_file(hsa_file_t file, hsa_code_object_reader_t* reader);
hsa_status_t reader_destroy(hsa_code_object_reader_t reader);
hsa_status_t load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                    hsa_code_object_reader_t reader, const char* options,
                                    hsa_loaded_code_object_t* loaded_code_object);
hsa_status_t executable_destroy(hsa_executable_t executable);

// ---- queues (intercept_queues.cpp) ----
hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                          uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue);
hsa_status_t queue_intercept_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                    void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                    uint32_t private_segment_size, uint32_t group_segment_size,
                                    hsa_queue_t** queue);
hsa_status_t queue_destroy(hsa_queue_t* queue);

// ---- the capture itself (capture_snapshot.cpp), called with every other submission held back and all
// preceding work complete. `run_kernel` submits the captured packet and returns once it has finished
// (false when it did not finish in time). Returns a one-line outcome for the log.
struct CaptureRequest {
  const KernelInfo* kernel = nullptr;
  const void* packet = nullptr;  // the application's 64-byte dispatch packet
  hsa_agent_t agent{};
};
std::string write_capture(const CaptureRequest& request, const std::function<bool()>& run_kernel);

}  // namespace rpl::hsa_capture
