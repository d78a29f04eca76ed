// librpl_hsa_capture.so: the HSA tools library `rocm-perf capture` loads into an application through
// HSA_TOOLS_LIB. ROCr calls OnLoad with its API table before the application's first HSA call returns;
// the tool saves the runtime's entries it replaces and patches the table, so HIP's and the application's
// calls (which all go through the table) reach the interceptors. Nothing is recompiled, relinked or
// preloaded. UNVALIDATED ON AMD HARDWARE: built and tested against Debian's ROCm 5.2.3 headers only.
//
// The table's layout differs between runtime generations (see hsa_newer_api.hpp); an unknown major
// version makes the tool decline to load (OnLoad returns false before touching anything), and the
// application runs as if the tool were absent.
#include <cstdlib>
#include <exception>

#include "collectors/amd/capture_injection/interceptors.hpp"
#include "support/errors.hpp"

namespace rpl::hsa_capture {
namespace {

// Replaces one AMD-extension entry, saving the runtime's. False when the runtime's table lacks it.
template <typename Fn>
bool patch_amd(void* table, unsigned slot, Fn replacement, Fn& saved) {
  void** entry = hsa_newer::table_slot(table, slot);
  if (!entry || !*entry) return false;
  saved = reinterpret_cast<Fn>(*entry);
  *entry = reinterpret_cast<void*>(replacement);
  return true;
}

template <typename Fn>
void replace(Fn& entry, Fn replacement, Fn& saved) {
  saved = entry;
  entry = replacement;
}

template <typename Fn>
Fn read_amd(void* table, unsigned slot) {
  void** entry = hsa_newer::table_slot(table, slot);
  return entry ? reinterpret_cast<Fn>(*entry) : nullptr;
}

// A core entry exists when the runtime's table (minor_id = its size) reaches it.
#define RPL_CORE_HAS(table, field) (offsetof(CoreApiTable, field) + sizeof(void*) <= (table)->version.minor_id)

bool install(HsaApiTable* table) {
  ToolState& s = state();
  if (!table || !table->core_ || !table->amd_ext_) {
    report("the runtime passed no API table; capture disabled");
    return false;
  }
  CoreApiTable* core = table->core_;
  void* amd = table->amd_ext_;
  const uint32_t core_major = core->version.major_id;
  const uint32_t amd_major = static_cast<ApiTableVersion*>(amd)->major_id;
  s.rt.slots = hsa_newer::amd_ext_slots(amd_major);
  if (!hsa_newer::core_table_supported(core_major) || !s.rt.slots) {
    report("unsupported HSA API table versions (core {}, AMD extensions {}); this build knows 1 and 2. "
           "Capture disabled.",
           core_major, amd_major);
    return false;
  }
  if (!RPL_CORE_HAS(core, hsa_executable_iterate_program_symbols_fn)) {
    report("the runtime's core API table is too short ({} bytes); capture disabled", core->version.minor_id);
    return false;
  }
  const auto& slots = *s.rt.slots;
  s.rt.core = core;
  s.rt.amd_ext = amd;
  // Required before anything is patched: the queue interception and the pool functions.
  s.rt.queue_intercept_register =
      read_amd<decltype(hsa_amd_queue_intercept_register)*>(amd, slots.queue_intercept_register);
  s.rt.iterate_pools = read_amd<decltype(hsa_amd_agent_iterate_memory_pools)*>(amd, slots.agent_iterate_memory_pools);
  s.rt.pool_get_info = read_amd<decltype(hsa_amd_memory_pool_get_info)*>(amd, slots.memory_pool_get_info);
  s.rt.signal_async_handler = read_amd<decltype(hsa_amd_signal_async_handler)*>(amd, slots.signal_async_handler);
  if (!s.rt.queue_intercept_register || !s.rt.pool_get_info || !s.rt.signal_async_handler ||
      !read_amd<void*>(amd, slots.queue_intercept_create) || !read_amd<void*>(amd, slots.memory_pool_allocate)) {
    report("the runtime lacks queue interception or memory-pool entries; capture disabled");
    return false;
  }

  // Core entries (same layout in major versions 1 and 2).
  replace(core->hsa_queue_create_fn, &queue_create, s.rt.queue_create);
  replace(core->hsa_queue_destroy_fn, &queue_destroy, s.rt.queue_destroy);
  replace(core->hsa_memory_allocate_fn, &memory_allocate, s.rt.memory_allocate);
  replace(core->hsa_memory_free_fn, &memory_free, s.rt.memory_free);
  replace(core->hsa_code_object_reader_create_from_memory_fn, &reader_create_from_memory, s.rt.reader_from_memory);
  replace(core->hsa_code_object_reader_create_from_file_fn, &reader_create_from_file, s.rt.reader_from_file);
  replace(core->hsa_code_object_reader_destroy_fn, &reader_destroy, s.rt.reader_destroy);
  replace(core->hsa_executable_load_agent_code_object_fn, &load_agent_code_object, s.rt.load_agent_code_object);
  replace(core->hsa_executable_destroy_fn, &executable_destroy, s.rt.executable_destroy);

  // AMD extension entries, by slot.
  patch_amd(amd, slots.queue_intercept_create, &queue_intercept_create, s.rt.queue_intercept_create);
  patch_amd(amd, slots.memory_pool_allocate, &pool_allocate, s.rt.pool_allocate);
  patch_amd(amd, slots.memory_pool_free, &pool_free, s.rt.pool_free);
  patch_amd(amd, slots.memory_lock, &memory_lock, s.rt.memory_lock);
  patch_amd(amd, slots.memory_lock_to_pool, &memory_lock_to_pool, s.rt.memory_lock_to_pool);
  patch_amd(amd, slots.memory_unlock, &memory_unlock, s.rt.memory_unlock);
  patch_amd(amd, slots.memory_async_copy, &async_copy, s.rt.async_copy);
  patch_amd(amd, slots.memory_async_copy_rect, &async_copy_rect, s.rt.async_copy_rect);
  patch_amd(amd, slots.memory_async_copy_on_engine, &async_copy_on_engine, s.rt.async_copy_on_engine);
  const bool vmem = patch_amd(amd, slots.vmem_address_reserve, &vmem_address_reserve, s.rt.vmem.address_reserve);
  patch_amd(amd, slots.vmem_address_free, &vmem_address_free, s.rt.vmem.address_free);
  patch_amd(amd, slots.vmem_handle_create, &vmem_handle_create, s.rt.vmem.handle_create);
  patch_amd(amd, slots.vmem_handle_release, &vmem_handle_release, s.rt.vmem.handle_release);
  patch_amd(amd, slots.vmem_map, &vmem_map, s.rt.vmem.map);
  patch_amd(amd, slots.vmem_unmap, &vmem_unmap, s.rt.vmem.unmap);
  if (s.config.verbose)
    report("attached: API tables core v{} / AMD extensions v{}; virtual-memory API {}", core_major, amd_major,
           vmem ? "intercepted" : "absent in this runtime");
  return true;
}

}  // namespace

// Says why nothing was captured, on stderr and in <dir>/capture_status.txt; once.
void report_if_not_captured() {
  ToolState& s = state();
  std::lock_guard lock(s.capture_mutex);
  if (!s.capture_enabled || s.finished || s.not_captured_reported) return;
  s.not_captured_reported = true;
  const auto& sel = *s.selector;
  const std::string why =
      !sel.target() ? fmt::format("no launched kernel matched /{}/ ({} kernels known)", s.config.kernel_regex,
                                  s.kernels.size())
                    : fmt::format("{} was launched {} time(s), fewer than the {} asked for", *sel.target(),
                                  sel.launches_of_target(), sel.k());
  report("nothing captured: {}", why);
  write_status_file(s.config.directory, "not captured: " + why);
}

}  // namespace rpl::hsa_capture

extern "C" {

// ROCr's tools-library entry points (hsa-runtime tools loader: "OnLoad" / "OnUnload").
__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* table, uint64_t runtime_version,
                                                   uint64_t failed_tool_count, const char* const* failed_tool_names) {
  (void)runtime_version;
  (void)failed_tool_count;
  (void)failed_tool_names;
  using namespace rpl::hsa_capture;
  ToolState& s = state();
  try {
    s.config = config_from_environment();
    s.selector.emplace(s.config.kernel_regex.empty() ? std::string(".") : s.config.kernel_regex,
                       s.config.dispatch_index);
  } catch (const rpl::Error& e) {
    report("{}; capture disabled", e.what());
    return false;
  }
  try {
    if (!install(table)) return false;
  } catch (const std::exception& e) {
    report("could not attach: {}", e.what());
    return false;
  }
  s.capture_enabled = true;
  std::atexit(report_if_not_captured);  // applications rarely call hsa_shut_down, so OnUnload may not come
  return true;
}

__attribute__((visibility("default"))) void OnUnload() { rpl::hsa_capture::report_if_not_captured(); }

}  // extern "C"
