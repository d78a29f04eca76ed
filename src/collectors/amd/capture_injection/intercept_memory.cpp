// Memory interceptors: every allocation path the capture must restore (pool allocations, legacy region
// allocations, locked host memory, virtual-memory mappings), and the asynchronous copies whose completion
// the capture waits for. UNVALIDATED ON AMD HARDWARE.
#include <chrono>
#include <exception>

#include "collectors/amd/capture_injection/interceptors.hpp"

namespace rpl::hsa_capture {
namespace {

using collectors::amd::Allocation;
using collectors::amd::AllocationKind;
using collectors::amd::Placement;

uint64_t address_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Runs `record` under the bookkeeping lock; an exception there (out of memory) must not reach the runtime.
template <typename F>
void record(F&& f) {
  try {
    std::lock_guard lock(state().mutex);
    f(state());
  } catch (const std::exception& e) {
    report("bookkeeping failed ({}); the capture may miss an allocation", e.what());
  }
}

// ---- copies in flight ---------------------------------------------------------------------------------

bool copy_completed(hsa_signal_value_t, void*) {
  ToolState& s = state();
  {
    std::lock_guard lock(s.copies_mutex);
    if (s.copies_in_flight > 0) --s.copies_in_flight;
  }
  s.copies_cv.notify_all();
  return false;  // one-shot
}

// A copy decrements its completion signal when done. The value is read before the copy is submitted, so a
// copy that finishes at once is still seen (the handler's condition already holds and it fires).
hsa_signal_value_t before_copy(hsa_signal_t signal) {
  if (signal.handle == 0) return 0;  // the runtime rejects the copy
  return state().rt.core->hsa_signal_load_scacquire_fn(signal);
}

void after_copy(hsa_status_t status, hsa_signal_t signal, hsa_signal_value_t value_before) {
  ToolState& s = state();
  if (status != HSA_STATUS_SUCCESS || s.finished || signal.handle == 0) return;
  {
    std::lock_guard lock(s.copies_mutex);
    ++s.copies_in_flight;
  }
  if (s.rt.signal_async_handler(signal, HSA_SIGNAL_CONDITION_LT, value_before, copy_completed, nullptr) !=
      HSA_STATUS_SUCCESS) {
    std::lock_guard lock(s.copies_mutex);
    --s.copies_in_flight;
    report("cannot watch an asynchronous copy's completion; the capture does not wait for it");
  }
}

}  // namespace

bool wait_for_copies(double timeout_s) {
  ToolState& s = state();
  std::unique_lock lock(s.copies_mutex);
  return s.copies_cv.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return s.copies_in_flight == 0; });
}

hsa_status_t async_copy(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent, size_t size,
                        uint32_t num_dep_signals, const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  const hsa_signal_value_t before = before_copy(completion_signal);
  const hsa_status_t status = state().rt.async_copy(dst, dst_agent, src, src_agent, size, num_dep_signals,
                                                    dep_signals, completion_signal);
  after_copy(status, completion_signal, before);
  return status;
}

hsa_status_t async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                             const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset, const hsa_dim3_t* range,
                             hsa_agent_t copy_agent, hsa_amd_copy_direction_t dir, uint32_t num_dep_signals,
                             const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  const hsa_signal_value_t before = before_copy(completion_signal);
  const hsa_status_t status = state().rt.async_copy_rect(dst, dst_offset, src, src_offset, range, copy_agent, dir,
                                                         num_dep_signals, dep_signals, completion_signal);
  after_copy(status, completion_signal, before);
  return status;
}

hsa_status_t async_copy_on_engine(void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
                                  size_t size, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                  hsa_signal_t completion_signal, hsa_newer::SdmaEngineId engine_id,
                                  bool force_copy_on_sdma) {
  const hsa_signal_value_t before = before_copy(completion_signal);
  const hsa_status_t status =
      state().rt.async_copy_on_engine(dst, dst_agent, src, src_agent, size, num_dep_signals, dep_signals,
                                      completion_signal, engine_id, force_copy_on_sdma);
  after_copy(status, completion_signal, before);
  return status;
}

// ---- allocations -----------------------------------------------------------------------------------------

hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags, void** ptr) {
  const hsa_status_t status = state().rt.pool_allocate(pool, size, flags, ptr);
  if (status == HSA_STATUS_SUCCESS && ptr && *ptr)
    record([&](ToolState& s) {
      Allocation a;
      a.base = address_of(*ptr);
      a.size = size;
      a.kind = AllocationKind::Pool;
      a.pool = pool.handle;
      a.placement = pool_info(pool).placement;
      s.allocations.add(a);
    });
  return status;
}

hsa_status_t pool_free(void* ptr) {
  const hsa_status_t status = state().rt.pool_free(ptr);
  if (status == HSA_STATUS_SUCCESS) record([&](ToolState& s) { s.allocations.remove(address_of(ptr)); });
  return status;
}

hsa_status_t memory_allocate(hsa_region_t region, size_t size, void** ptr) {
  const hsa_status_t status = state().rt.memory_allocate(region, size, ptr);
  if (status == HSA_STATUS_SUCCESS && ptr && *ptr)
    record([&](ToolState& s) {
      Allocation a;
      a.base = address_of(*ptr);
      a.size = size;
      a.kind = AllocationKind::Legacy;
      a.pool = region.handle;  // an hsa_region_t, not a pool: placement stays unknown
      s.allocations.add(a);
    });
  return status;
}

hsa_status_t memory_free(void* ptr) {
  const hsa_status_t status = state().rt.memory_free(ptr);
  if (status == HSA_STATUS_SUCCESS) record([&](ToolState& s) { s.allocations.remove(address_of(ptr)); });
  return status;
}

namespace {
void record_locked(void* host_ptr, size_t size, void* agent_ptr, uint64_t pool) {
  record([&](ToolState& s) {
    Allocation a;
    a.base = address_of(agent_ptr);
    a.size = size;
    a.kind = AllocationKind::LockedHost;
    a.placement = Placement::Host;
    a.pool = pool;
    a.host_address = address_of(host_ptr);
    s.allocations.add(a);
  });
}
}  // namespace

hsa_status_t memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent, void** agent_ptr) {
  const hsa_status_t status = state().rt.memory_lock(host_ptr, size, agents, num_agent, agent_ptr);
  if (status == HSA_STATUS_SUCCESS && agent_ptr && *agent_ptr) record_locked(host_ptr, size, *agent_ptr, 0);
  return status;
}

hsa_status_t memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                 hsa_amd_memory_pool_t pool, uint32_t flags, void** agent_ptr) {
  const hsa_status_t status =
      state().rt.memory_lock_to_pool(host_ptr, size, agents, num_agent, pool, flags, agent_ptr);
  if (status == HSA_STATUS_SUCCESS && agent_ptr && *agent_ptr)
    record_locked(host_ptr, size, *agent_ptr, pool.handle);
  return status;
}

hsa_status_t memory_unlock(void* host_ptr) {
  const hsa_status_t status = state().rt.memory_unlock(host_ptr);
  if (status == HSA_STATUS_SUCCESS)
    record([&](ToolState& s) { s.allocations.remove_locked_host(address_of(host_ptr)); });
  return status;
}

// ---- virtual memory --------------------------------------------------------------------------------------

hsa_status_t vmem_address_reserve(void** va, size_t size, uint64_t address, uint64_t flags) {
  const hsa_status_t status = state().rt.vmem.address_reserve(va, size, address, flags);
  if (status == HSA_STATUS_SUCCESS && va && *va)
    record([&](ToolState& s) { s.allocations.reserved(address_of(*va), size); });
  return status;
}

hsa_status_t vmem_address_free(void* va, size_t size) {
  const hsa_status_t status = state().rt.vmem.address_free(va, size);
  if (status == HSA_STATUS_SUCCESS) record([&](ToolState& s) { s.allocations.reservation_freed(address_of(va), size); });
  return status;
}

hsa_status_t vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size, hsa_newer::MemoryType type, uint64_t flags,
                                hsa_newer::VmemAllocHandle* handle) {
  const hsa_status_t status = state().rt.vmem.handle_create(pool, size, type, flags, handle);
  if (status == HSA_STATUS_SUCCESS && handle)
    record([&](ToolState& s) { s.allocations.handle_created(handle->handle, pool.handle, size, pool_info(pool).placement); });
  return status;
}

hsa_status_t vmem_handle_release(hsa_newer::VmemAllocHandle handle) {
  const hsa_status_t status = state().rt.vmem.handle_release(handle);
  if (status == HSA_STATUS_SUCCESS) record([&](ToolState& s) { s.allocations.handle_released(handle.handle); });
  return status;
}

hsa_status_t vmem_map(void* va, size_t size, size_t in_offset, hsa_newer::VmemAllocHandle handle, uint64_t flags) {
  const hsa_status_t status = state().rt.vmem.map(va, size, in_offset, handle, flags);
  if (status == HSA_STATUS_SUCCESS)
    record([&](ToolState& s) {
      if (!s.allocations.mapped(address_of(va), size, handle.handle, in_offset) && s.unexplained_mappings++ == 0)
        report("a virtual-memory mapping at {} lies outside the reservations or handles seen; it is captured "
               "with unknown placement",
               va);
    });
  return status;
}

hsa_status_t vmem_unmap(void* va, size_t size) {
  const hsa_status_t status = state().rt.vmem.unmap(va, size);
  if (status == HSA_STATUS_SUCCESS) record([&](ToolState& s) { s.allocations.unmapped(address_of(va), size); });
  return status;
}

}  // namespace rpl::hsa_capture
