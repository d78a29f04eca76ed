#pragma once
// ============================================================================================================
// DECLARED HERE, NOT IN THE PACKAGED HEADERS. Debian's libhsa-runtime-dev (ROCm 5.2.3) predates the HSA
// virtual-memory API (hsa_amd_vmem_*, ROCm 6.0) and ROCm 6's reshuffled AMD extension table. What the capture
// tool and the replay runner need of them is declared in this one file, written from ROCR-Runtime's public
// API (hsa_ext_amd.h / hsa_api_trace.h of ROCm 6.x and 7.x); the runner resolves the functions with dlsym at
// run time and the tool takes them from the table it is given, so both load on runtimes without them.
// UNVALIDATED ON AMD HARDWARE: written and compiled against headers only.
// ============================================================================================================
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>
#include <cstdint>

namespace rpl::hsa_newer {

// ---- hsa_ext_amd.h (ROCm >= 6.0): virtual memory ----------------------------------------------------------
struct VmemAllocHandle {  // hsa_amd_vmem_alloc_handle_t
  uint64_t handle;
};
enum MemoryType : int {  // hsa_amd_memory_type_t
  kMemoryTypeNone = 0,
  kMemoryTypePinned = 1,
};
struct MemoryAccessDesc {  // hsa_amd_memory_access_desc_t
  hsa_access_permission_t permissions;
  hsa_agent_t agent_handle;
};

using VmemAddressReserveFn = hsa_status_t (*)(void** va, size_t size, uint64_t address, uint64_t flags);
using VmemAddressFreeFn = hsa_status_t (*)(void* va, size_t size);
using VmemHandleCreateFn = hsa_status_t (*)(hsa_amd_memory_pool_t pool, size_t size, MemoryType type,
                                            uint64_t flags, VmemAllocHandle* handle);
using VmemHandleReleaseFn = hsa_status_t (*)(VmemAllocHandle handle);
using VmemMapFn = hsa_status_t (*)(void* va, size_t size, size_t in_offset, VmemAllocHandle handle,
                                   uint64_t flags);
using VmemUnmapFn = hsa_status_t (*)(void* va, size_t size);
using VmemSetAccessFn = hsa_status_t (*)(void* va, size_t size, const MemoryAccessDesc* desc, size_t desc_count);

// The virtual-memory entries, as the tool saves them from the API table and the runner resolves them.
struct VmemApi {
  VmemAddressReserveFn address_reserve = nullptr;
  VmemAddressFreeFn address_free = nullptr;
  VmemHandleCreateFn handle_create = nullptr;
  VmemHandleReleaseFn handle_release = nullptr;
  VmemMapFn map = nullptr;
  VmemUnmapFn unmap = nullptr;
  VmemSetAccessFn set_access = nullptr;
};

// ---- hsa_ext_amd.h (ROCm >= 6.0): SDMA engine selection, which HIP uses for its copies -------------------
using SdmaEngineId = int;  // hsa_amd_sdma_engine_id_t, a C enum
using AsyncCopyOnEngineFn = hsa_status_t (*)(void* dst, hsa_agent_t dst_agent, const void* src,
                                             hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                             const hsa_signal_t* dep_signals, hsa_signal_t completion_signal,
                                             SdmaEngineId engine_id, bool force_copy_on_sdma);

// ---- hsa_api_trace.h: where the AMD extension table keeps the entries the tool patches --------------------
// The table passed to OnLoad is a sequence of function pointers after a 16-byte ApiTableVersion whose
// minor_id holds the table's size in bytes. Major version 1 (ROCm 5.x) is the packaged AmdExtTable. Major
// version 2 (ROCm 6.0 on) inserted hsa_amd_memory_async_copy_on_engine and hsa_amd_memory_copy_engine_status
// after hsa_amd_memory_async_copy, and the SPM, dmabuf and vmem entries after hsa_amd_svm_prefetch_async.
// Entries are addressed by slot (pointer index after the version header).
struct AmdExtSlots {
  unsigned agent_iterate_memory_pools;
  unsigned memory_pool_get_info;
  unsigned memory_pool_allocate;
  unsigned memory_pool_free;
  unsigned agents_allow_access;
  unsigned memory_lock;
  unsigned memory_unlock;
  unsigned memory_lock_to_pool;
  unsigned queue_intercept_create;
  unsigned queue_intercept_register;
  unsigned profiling_get_dispatch_time;
  unsigned profiling_set_profiler_enabled;
  unsigned memory_async_copy;
  unsigned memory_async_copy_rect;
  unsigned signal_async_handler;
  // Only in major version 2 (0 = absent).
  unsigned memory_async_copy_on_engine;
  unsigned vmem_address_reserve;
  unsigned vmem_address_free;
  unsigned vmem_handle_create;
  unsigned vmem_handle_release;
  unsigned vmem_map;
  unsigned vmem_unmap;
  unsigned vmem_set_access;
};

inline constexpr std::size_t kSlotBase = sizeof(ApiTableVersion);
inline constexpr unsigned slot_of(std::size_t offset) {
  return static_cast<unsigned>((offset - kSlotBase) / sizeof(void*));
}

// Major version 1: the packaged struct is the authority.
inline constexpr AmdExtSlots kAmdExtV1 = {
    slot_of(offsetof(AmdExtTable, hsa_amd_agent_iterate_memory_pools_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_pool_get_info_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_pool_allocate_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_pool_free_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_agents_allow_access_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_lock_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_unlock_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_lock_to_pool_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_queue_intercept_create_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_queue_intercept_register_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_profiling_get_dispatch_time_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_profiling_set_profiler_enabled_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_async_copy_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_memory_async_copy_rect_fn)),
    slot_of(offsetof(AmdExtTable, hsa_amd_signal_async_handler_fn)),
    0, 0, 0, 0, 0, 0, 0, 0,
};

// Major version 2 (ROCm 6.x, 7.x): written out from ROCR's hsa_api_trace.h.
inline constexpr AmdExtSlots kAmdExtV2 = {
    /*agent_iterate_memory_pools=*/12,
    /*memory_pool_get_info=*/11,
    /*memory_pool_allocate=*/13,
    /*memory_pool_free=*/14,
    /*agents_allow_access=*/19,
    /*memory_lock=*/22,
    /*memory_unlock=*/23,
    /*memory_lock_to_pool=*/42,
    /*queue_intercept_create=*/37,
    /*queue_intercept_register=*/38,
    /*profiling_get_dispatch_time=*/4,
    /*profiling_set_profiler_enabled=*/2,
    /*memory_async_copy=*/15,
    /*memory_async_copy_rect=*/40,
    /*signal_async_handler=*/7,
    /*memory_async_copy_on_engine=*/16,
    /*vmem_address_reserve=*/55,
    /*vmem_address_free=*/56,
    /*vmem_handle_create=*/57,
    /*vmem_handle_release=*/58,
    /*vmem_map=*/59,
    /*vmem_unmap=*/60,
    /*vmem_set_access=*/61,
};

// The slots common to both layouts must agree with the packaged header where the layouts coincide.
static_assert(kAmdExtV1.agent_iterate_memory_pools == kAmdExtV2.agent_iterate_memory_pools);
static_assert(kAmdExtV1.memory_pool_allocate == kAmdExtV2.memory_pool_allocate);
static_assert(kAmdExtV1.memory_pool_free == kAmdExtV2.memory_pool_free);
static_assert(kAmdExtV1.profiling_get_dispatch_time == kAmdExtV2.profiling_get_dispatch_time);
static_assert(kAmdExtV1.queue_intercept_create + 2 == kAmdExtV2.queue_intercept_create &&
                  kAmdExtV1.memory_async_copy_rect + 2 == kAmdExtV2.memory_async_copy_rect &&
                  kAmdExtV1.memory_lock_to_pool + 2 == kAmdExtV2.memory_lock_to_pool,
              "v2 inserted two entries after hsa_amd_memory_async_copy");

// The slots for a table, or nullptr for a major version this build does not know.
inline const AmdExtSlots* amd_ext_slots(uint32_t major_version) {
  if (major_version == 1) return &kAmdExtV1;
  if (major_version == 2) return &kAmdExtV2;
  return nullptr;
}

// A slot of a live table, checked against the table's size (minor_id); nullptr when the runtime's table is
// too short to have it (or slot is 0, "absent").
inline void** table_slot(void* table, unsigned slot) {
  if (slot == 0) return nullptr;
  auto* version = static_cast<ApiTableVersion*>(table);
  const std::size_t offset = kSlotBase + std::size_t{slot} * sizeof(void*);
  if (offset + sizeof(void*) > version->minor_id) return nullptr;
  return reinterpret_cast<void**>(static_cast<char*>(table) + offset);
}

// The core table kept its layout from major version 1 to 2 (v2 dropped unions of same-sized pointers), so
// the packaged CoreApiTable serves both.
inline bool core_table_supported(uint32_t major_version) { return major_version == 1 || major_version == 2; }

}  // namespace rpl::hsa_newer
