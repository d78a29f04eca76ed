// TEST DOUBLE: a stand-in HSA runtime (libfake_hsa_runtime.so) for rpl_replay_hsa's tests on machines without
// an AMD GPU. It exports the entry points the runner resolves with dlsym, with the HSA C ABI (handles are
// structs of one uint64_t, enums are ints; the numeric values below are hsa.h's), and behaves like a tiny
// GPU whose "device memory" is process memory:
//  - hsa_amd_vmem_address_reserve maps PROT_NONE at the requested address as a hint, like the real runtime,
//    which may place a reservation elsewhere; map/unmap switch the range to read-write and back;
//  - code objects are read with the project's own code-object reader, kernels get fake kernel objects;
//  - a doorbell store runs the AQL packets written to the queue: two kernels of tests/data/hip/kernels.hip
//    are emulated on the CPU (add_one, tile_sum), after checking the packet header the way a packet
//    processor would.
// FAKE_HSA selects failures: "init-fails", "no-gpu", "relocate", "fault"; FAKE_HSA_AGENT names the GPU
// (default gfx90a). No HSA header is included: tests/ never sees vendor headers.
#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/amd/code_object.hpp"

namespace {

using status_t = int;
constexpr status_t kSuccess = 0, kInfoBreak = 0x1, kError = 0x1000, kInvalidArgument = 0x1001,
                   kOutOfResources = 0x1008, kInvalidSymbolName = 0x1013, kException = 0x1016;
struct Handle {
  uint64_t handle;
};
struct Queue {  // hsa_queue_t
  uint32_t type, features;
  void* base_address;
  Handle doorbell_signal;
  uint32_t size, reserved1;
  uint64_t id;
};
struct DispatchTime {
  uint64_t start, end;
};
using QueueCallback = void (*)(status_t, Queue*, void*);

struct Signal {
  std::atomic<int64_t> value{0};
  Queue* doorbell_of = nullptr;
  DispatchTime time{};
};
struct FakeQueue {
  Queue q{};
  std::vector<unsigned char> ring;
  std::atomic<uint64_t> write_index{0}, read_index{0};
  QueueCallback callback = nullptr;
  void* data = nullptr;
};
struct Kernel {
  std::string symbol;  // "<name>.kd"
  uint32_t kernarg = 0, group = 0, scratch = 0;
};

constexpr uint64_t kGpu = 0x6a, kCpu = 0x6b;
constexpr uint64_t kPoolCoarse = 0x100, kPoolFine = 0x101, kPoolKernarg = 0x102;
std::mutex g_mutex;
std::vector<std::vector<std::byte>> g_readers;  // reader handle = index + 1
std::vector<Kernel> g_kernels;                  // kernel object = index + 1, symbol handle = index + 1
std::map<uint64_t, std::unique_ptr<FakeQueue>> g_queues;
uint64_t g_ticks = 1000;

std::string mode() {
  const char* m = std::getenv("FAKE_HSA");
  return m ? m : "";
}

template <typename T>
void put(void* out, T value) {
  std::memcpy(out, &value, sizeof value);
}

Signal* signal_of(Handle h) { return reinterpret_cast<Signal*>(h.handle); }

// The two kernels this GPU "runs", by their HIP source semantics.
bool emulate(const std::string& symbol, const unsigned char* args, const uint32_t grid[3], const uint16_t wg[3]) {
  if (symbol == "_Z7add_onePfi.kd") {
    float* x;
    int n;
    std::memcpy(&x, args, 8);
    std::memcpy(&n, args + 8, 4);
    for (uint32_t i = 0; i < grid[0]; ++i)
      if (static_cast<int>(i) < n) x[i] += 1.0f;
    return true;
  }
  if (symbol == "_Z8tile_sumPKfPf.kd") {
    const float* in;
    float* out;
    std::memcpy(&in, args, 8);
    std::memcpy(&out, args + 8, 8);
    if (wg[0] != 256) return false;
    for (uint32_t b = 0; b < grid[0] / 256; ++b) {
      float s = 0;
      for (int i = 0; i < 256; ++i) s += in[b * 256 + i];
      out[b] = s;
    }
    return true;
  }
  return false;
}

void run_packets(FakeQueue& fq, uint64_t up_to) {
  while (fq.read_index <= up_to) {
    unsigned char* p = fq.ring.data() + (fq.read_index % fq.q.size) * 64;
    uint16_t header, setup, wg[3];
    uint32_t grid[3];
    uint64_t object, kernarg, completion;
    std::memcpy(&header, p, 2);
    std::memcpy(&setup, p + 2, 2);
    std::memcpy(wg, p + 4, 6);
    std::memcpy(grid, p + 12, 12);
    std::memcpy(&object, p + 32, 8);
    std::memcpy(&kernarg, p + 40, 8);
    std::memcpy(&completion, p + 56, 8);
    // A packet processor only accepts a published kernel-dispatch packet; the fake also insists on the
    // system-scope fences the runner promises.
    const bool valid = (header & 0xff) == 2 && ((header >> 9) & 3) == 2 && ((header >> 11) & 3) == 2 &&
                       (setup & 3) >= 1 && object >= 1 && object <= g_kernels.size() && mode() != "fault";
    if (!valid || !emulate(g_kernels[object - 1].symbol, reinterpret_cast<unsigned char*>(kernarg), grid, wg)) {
      if (fq.callback) fq.callback(kException, &fq.q, fq.data);
      return;
    }
    std::memset(p, 0, 2);  // back to INVALID: the slot is free
    ++fq.read_index;
    if (Signal* s = signal_of({completion})) {
      s->time = {g_ticks, g_ticks + 2500};  // 2.5 us at 1 GHz
      g_ticks += 10000;
      s->value -= 1;
    }
  }
}

}  // namespace

extern "C" {

status_t hsa_init() { return mode() == "init-fails" ? kOutOfResources : kSuccess; }
status_t hsa_shut_down() { return kSuccess; }
status_t hsa_status_string(status_t status, const char** text) {
  *text = status == kOutOfResources ? "HSA_STATUS_ERROR_OUT_OF_RESOURCES: fake runtime, no GPU" : "fake HSA error";
  return kSuccess;
}
status_t hsa_system_get_info(int attribute, void* value) {
  if (attribute != 3) return kInvalidArgument;  // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY
  put<uint64_t>(value, 1'000'000'000);
  return kSuccess;
}
status_t hsa_iterate_agents(status_t (*callback)(Handle, void*), void* data) {
  callback({kCpu}, data);
  if (mode() != "no-gpu") callback({kGpu}, data);
  return kSuccess;
}
status_t hsa_agent_get_info(Handle agent, int attribute, void* value) {
  switch (attribute) {
    case 0: {  // NAME
      const char* agent_env = std::getenv("FAKE_HSA_AGENT");
      std::string name = agent.handle == kGpu ? (agent_env ? agent_env : "gfx90a") : "fake CPU";
      std::memset(value, 0, 64);
      std::memcpy(value, name.data(), name.size());
      return kSuccess;
    }
    case 17: put<int>(value, agent.handle == kGpu ? 1 : 0); return kSuccess;  // DEVICE: GPU 1, CPU 0
    case 4: put<int>(value, 0); return kSuccess;                                // PROFILE: base
    case 13: put<uint32_t>(value, 64); return kSuccess;                         // QUEUE_MIN_SIZE
    default: return kInvalidArgument;
  }
}
status_t hsa_agent_iterate_isas(Handle, status_t (*callback)(Handle, void*), void* data) {
  callback({1}, data);
  return kSuccess;
}
status_t hsa_isa_get_info_alt(Handle, int attribute, void* value) {
  const std::string name = "amdgcn-amd-amdhsa--gfx90a";
  if (attribute == 0) put<uint32_t>(value, static_cast<uint32_t>(name.size()));
  else std::memcpy(value, name.data(), name.size());
  return kSuccess;
}

status_t hsa_signal_create(int64_t initial, uint32_t, const Handle*, Handle* signal) {
  auto* s = new Signal;
  s->value = initial;
  signal->handle = reinterpret_cast<uint64_t>(s);
  return kSuccess;
}
status_t hsa_signal_destroy(Handle signal) {
  delete signal_of(signal);
  return kSuccess;
}
void hsa_signal_store_screlease(Handle signal, int64_t value) {
  Signal* s = signal_of(signal);
  s->value = value;
  if (s->doorbell_of) {
    std::lock_guard lock(g_mutex);
    run_packets(*g_queues.at(reinterpret_cast<uint64_t>(s->doorbell_of)), static_cast<uint64_t>(value));
  }
}
int64_t hsa_signal_wait_scacquire(Handle signal, int condition, int64_t compare, uint64_t, int) {
  const int64_t v = signal_of(signal)->value;
  if (condition == 2 && v >= compare) {  // LT, not yet: a real runtime would block; the fake never changes later
    static int spins = 0;
    if (++spins > 3) std::abort();  // a runner waiting on work the fake never ran: fail loudly
  }
  return v;
}

status_t hsa_queue_create(Handle, uint32_t size, int, QueueCallback callback, void* data, uint32_t, uint32_t,
                          Queue** queue) {
  auto fq = std::make_unique<FakeQueue>();
  fq->ring.assign(size * 64, 0);
  for (uint32_t i = 0; i < size; ++i) fq->ring[i * 64] = 1;  // INVALID
  fq->q.base_address = fq->ring.data();
  fq->q.size = size;
  fq->callback = callback;
  fq->data = data;
  Handle doorbell;
  hsa_signal_create(0, 0, nullptr, &doorbell);
  signal_of(doorbell)->doorbell_of = &fq->q;
  fq->q.doorbell_signal = doorbell;
  *queue = &fq->q;
  std::lock_guard lock(g_mutex);
  g_queues[reinterpret_cast<uint64_t>(&fq->q)] = std::move(fq);
  return kSuccess;
}
status_t hsa_queue_destroy(Queue* queue) {
  std::lock_guard lock(g_mutex);
  delete signal_of(queue->doorbell_signal);  // the queue owns its doorbell, as in ROCr
  g_queues.erase(reinterpret_cast<uint64_t>(queue));
  return kSuccess;
}
uint64_t hsa_queue_add_write_index_scacq_screl(const Queue* queue, uint64_t n) {
  return g_queues.at(reinterpret_cast<uint64_t>(queue))->write_index.fetch_add(n);
}
uint64_t hsa_queue_load_read_index_scacquire(const Queue* queue) {
  return g_queues.at(reinterpret_cast<uint64_t>(queue))->read_index;
}

status_t hsa_memory_copy(void* dst, const void* src, size_t size) {
  std::memmove(dst, src, size);
  return kSuccess;
}

status_t hsa_code_object_reader_create_from_memory(const void* data, size_t size, Handle* reader) {
  std::lock_guard lock(g_mutex);
  g_readers.emplace_back(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + size);
  reader->handle = g_readers.size();
  return kSuccess;
}
status_t hsa_code_object_reader_destroy(Handle) { return kSuccess; }
status_t hsa_executable_create_alt(int, int, const char*, Handle* executable) {
  executable->handle = 1;
  return kSuccess;
}
status_t hsa_executable_load_agent_code_object(Handle, Handle agent, Handle reader, const char*, Handle*) {
  if (agent.handle != kGpu || reader.handle == 0 || reader.handle > g_readers.size()) return kInvalidArgument;
  try {
    const auto co = rpl::collectors::amd::read_code_object(g_readers[reader.handle - 1], "fake loader");
    std::lock_guard lock(g_mutex);
    for (const auto& k : co.kernels)
      g_kernels.push_back({k.symbol, k.kernarg_segment_size, k.group_segment_fixed_size, k.private_segment_fixed_size});
  } catch (...) {
    return 0x1010;  // HSA_STATUS_ERROR_INVALID_CODE_OBJECT
  }
  return kSuccess;
}
status_t hsa_executable_freeze(Handle, const char*) { return kSuccess; }
status_t hsa_executable_destroy(Handle) { return kSuccess; }
status_t hsa_executable_get_symbol_by_name(Handle, const char* name, const Handle*, Handle* symbol) {
  for (std::size_t i = 0; i < g_kernels.size(); ++i)
    if (g_kernels[i].symbol == name) {
      symbol->handle = i + 1;
      return kSuccess;
    }
  return kInvalidSymbolName;
}
status_t hsa_executable_iterate_agent_symbols(Handle exe, Handle agent, status_t (*callback)(Handle, Handle, Handle, void*),
                                              void* data) {
  for (std::size_t i = 0; i < g_kernels.size(); ++i)
    if (callback(exe, agent, {i + 1}, data) != kSuccess) break;
  return kSuccess;
}
status_t hsa_executable_symbol_get_info(Handle symbol, int attribute, void* value) {
  if (symbol.handle == 0 || symbol.handle > g_kernels.size()) return kInvalidArgument;
  const Kernel& k = g_kernels[symbol.handle - 1];
  switch (attribute) {
    case 0: put<int>(value, 1); return kSuccess;  // TYPE: kernel
    case 1: put<uint32_t>(value, static_cast<uint32_t>(k.symbol.size())); return kSuccess;
    case 2: std::memcpy(value, k.symbol.data(), k.symbol.size()); return kSuccess;
    case 22: put<uint64_t>(value, symbol.handle); return kSuccess;  // KERNEL_OBJECT
    case 11: put<uint32_t>(value, k.kernarg); return kSuccess;
    case 13: put<uint32_t>(value, k.group); return kSuccess;
    case 14: put<uint32_t>(value, k.scratch); return kSuccess;
    default: return kInvalidArgument;
  }
}

status_t hsa_amd_agent_iterate_memory_pools(Handle agent, status_t (*callback)(Handle, void*), void* data) {
  if (agent.handle == kGpu) return callback({kPoolCoarse}, data);
  callback({kPoolFine}, data);
  return callback({kPoolKernarg}, data);
}
status_t hsa_amd_memory_pool_get_info(Handle pool, int attribute, void* value) {
  switch (attribute) {
    case 0: put<int>(value, 0); return kSuccess;      // SEGMENT: global
    case 5: put<bool>(value, true); return kSuccess;  // RUNTIME_ALLOC_ALLOWED
    case 1:                                           // GLOBAL_FLAGS
      put<uint32_t>(value, pool.handle == kPoolCoarse ? 4u : pool.handle == kPoolFine ? 2u : 1u | 2u);
      return kSuccess;
    default: return kInvalidArgument;
  }
}
status_t hsa_amd_memory_pool_allocate(Handle, size_t size, uint32_t, void** ptr) {
  *ptr = std::aligned_alloc(4096, (size + 4095) & ~size_t{4095});
  return *ptr ? kSuccess : kOutOfResources;
}
status_t hsa_amd_memory_pool_free(void* ptr) {
  std::free(ptr);
  return kSuccess;
}
status_t hsa_amd_agents_allow_access(uint32_t, const Handle*, const uint32_t*, const void*) { return kSuccess; }
status_t hsa_amd_profiling_set_profiler_enabled(Queue*, int) { return kSuccess; }
status_t hsa_amd_profiling_get_dispatch_time(Handle, Handle signal, DispatchTime* time) {
  *time = signal_of(signal)->time;
  return kSuccess;
}

// Virtual memory (ROCm >= 6.0 in the real runtime).
status_t hsa_amd_vmem_address_reserve(void** va, size_t size, uint64_t address, uint64_t) {
  if (mode() == "relocate") address += uint64_t{1} << 40;  // "the aperture was in the way"
  void* p = mmap(reinterpret_cast<void*>(address), size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return kOutOfResources;
  *va = p;
  return kSuccess;
}
status_t hsa_amd_vmem_address_free(void* va, size_t size) {
  munmap(va, size);
  return kSuccess;
}
status_t hsa_amd_vmem_handle_create(Handle, size_t, int, uint64_t, Handle* handle) {
  handle->handle = 1;
  return kSuccess;
}
status_t hsa_amd_vmem_handle_release(Handle) { return kSuccess; }
status_t hsa_amd_vmem_map(void* va, size_t size, size_t, Handle, uint64_t) {
  return mmap(va, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == va ? kSuccess : kError;
}
status_t hsa_amd_vmem_unmap(void* va, size_t size) {
  return mmap(va, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == va ? kSuccess : kError;
}
status_t hsa_amd_vmem_set_access(void*, size_t, const void*, size_t count) { return count ? kSuccess : kInvalidArgument; }

}  // extern "C"
