#pragma once
// The device-visible memory an HSA application holds at a given moment, as the capture tool sees it through
// the intercepted allocation calls. No fixed capacity (the first implementation silently dropped everything
// past 256 live allocations). Pure bookkeeping, free of HSA headers so it is tested without a GPU; not
// thread-safe (the tool serialises calls).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rpl::collectors::amd {

enum class AllocationKind {
  Pool,        // hsa_amd_memory_pool_allocate
  Virtual,     // a hsa_amd_vmem_map mapping inside a hsa_amd_vmem_address_reserve range
  LockedHost,  // hsa_amd_memory_lock / lock_to_pool: host memory made visible to agents
  Legacy,      // hsa_memory_allocate (HSA 1.0 regions)
};
const char* to_string(AllocationKind kind);  // the capture manifest's region kind: "pool", "virtual", ...

// Where the backing memory lives, which the replay reproduces so timings keep their meaning.
enum class Placement { DeviceCoarse, DeviceFine, Host, Unknown };
const char* to_string(Placement placement);  // "device_coarse", "device_fine", "host", "unknown"
std::optional<Placement> parse_placement(const std::string& text);

struct Allocation {
  uint64_t base = 0;  // device-visible address
  uint64_t size = 0;
  AllocationKind kind = AllocationKind::Pool;
  Placement placement = Placement::Unknown;
  uint64_t pool = 0;           // hsa_amd_memory_pool_t handle (0 when not from a pool)
  uint64_t vmem_handle = 0;    // Virtual: the physical allocation mapped here
  uint64_t handle_offset = 0;  // Virtual: offset of the mapping inside that allocation
  uint64_t host_address = 0;   // LockedHost: the application's host pointer
};

class LiveAllocations {
 public:
  // An allocation that succeeded. Records overlapping the new range are stale (freed through a path that
  // was not seen) and are dropped; stale_dropped() counts them.
  void add(const Allocation& allocation);
  // A free of the allocation starting at `base`; false when none starts there.
  bool remove(uint64_t base);
  // hsa_amd_memory_unlock takes the host pointer.
  bool remove_locked_host(uint64_t host_address);

  // Virtual memory: physical handles, address reservations, mappings.
  void handle_created(uint64_t handle, uint64_t pool, uint64_t size, Placement placement);
  void handle_released(uint64_t handle);
  void reserved(uint64_t address, uint64_t size);
  void reservation_freed(uint64_t address, uint64_t size);
  // Always records the mapping; returns false when the range lies outside every known reservation or the
  // handle is unknown (its placement is then Unknown), which the caller reports.
  bool mapped(uint64_t address, uint64_t size, uint64_t handle, uint64_t handle_offset);
  // Removes mappings inside [address, address + size); a mapping cut in two keeps both outer parts.
  void unmapped(uint64_t address, uint64_t size);

  // Every live allocation, ordered by address, disjoint.
  std::vector<Allocation> snapshot() const;
  std::optional<Allocation> containing(uint64_t address) const;
  std::size_t size() const { return by_base_.size(); }
  uint64_t total_bytes() const;
  uint64_t stale_dropped() const { return stale_dropped_; }

 private:
  struct Handle {
    uint64_t pool = 0, size = 0;
    Placement placement = Placement::Unknown;
  };
  // Drops or trims every record overlapping [begin, end); trimmed Virtual parts stay.
  void erase_range(uint64_t begin, uint64_t end, bool count_as_stale);

  std::map<uint64_t, Allocation> by_base_;
  std::map<uint64_t, uint64_t> reservations_;  // base -> size
  std::map<uint64_t, Handle> handles_;
  uint64_t stale_dropped_ = 0;
};

}  // namespace rpl::collectors::amd
