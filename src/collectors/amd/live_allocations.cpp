#include "collectors/amd/live_allocations.hpp"

namespace rpl::collectors::amd {

const char* to_string(AllocationKind kind) {
  switch (kind) {
    case AllocationKind::Pool: return "pool";
    case AllocationKind::Virtual: return "virtual";
    case AllocationKind::LockedHost: return "locked_host";
    case AllocationKind::Legacy: return "legacy";
  }
  return "pool";
}

const char* to_string(Placement placement) {
  switch (placement) {
    case Placement::DeviceCoarse: return "device_coarse";
    case Placement::DeviceFine: return "device_fine";
    case Placement::Host: return "host";
    case Placement::Unknown: return "unknown";
  }
  return "unknown";
}

std::optional<Placement> parse_placement(const std::string& text) {
  for (Placement p : {Placement::DeviceCoarse, Placement::DeviceFine, Placement::Host, Placement::Unknown})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

void LiveAllocations::erase_range(uint64_t begin, uint64_t end, bool count_as_stale) {
  if (begin >= end) return;
  // The first record that may overlap is the last one starting at or before `begin`.
  auto it = by_base_.upper_bound(begin);
  if (it != by_base_.begin()) --it;
  std::vector<Allocation> keep;
  while (it != by_base_.end() && it->first < end) {
    const Allocation a = it->second;
    const uint64_t a_end = a.base + a.size;
    if (a_end <= begin) {
      ++it;
      continue;
    }
    it = by_base_.erase(it);
    if (count_as_stale) ++stale_dropped_;
    // Only virtual mappings can be cut: the parts outside the range stay mapped.
    if (a.kind != AllocationKind::Virtual || count_as_stale) continue;
    if (a.base < begin) {
      Allocation left = a;
      left.size = begin - a.base;
      keep.push_back(left);
    }
    if (a_end > end) {
      Allocation right = a;
      right.base = end;
      right.size = a_end - end;
      right.handle_offset = a.handle_offset + (end - a.base);
      keep.push_back(right);
    }
  }
  for (const Allocation& a : keep) by_base_[a.base] = a;
}

void LiveAllocations::add(const Allocation& allocation) {
  if (allocation.size == 0) return;
  erase_range(allocation.base, allocation.base + allocation.size, /*count_as_stale=*/true);
  by_base_[allocation.base] = allocation;
}

bool LiveAllocations::remove(uint64_t base) { return by_base_.erase(base) > 0; }

bool LiveAllocations::remove_locked_host(uint64_t host_address) {
  for (auto it = by_base_.begin(); it != by_base_.end(); ++it) {
    if (it->second.kind == AllocationKind::LockedHost && it->second.host_address == host_address) {
      by_base_.erase(it);
      return true;
    }
  }
  return false;
}

void LiveAllocations::handle_created(uint64_t handle, uint64_t pool, uint64_t size, Placement placement) {
  handles_[handle] = Handle{pool, size, placement};
}

void LiveAllocations::handle_released(uint64_t handle) { handles_.erase(handle); }

void LiveAllocations::reserved(uint64_t address, uint64_t size) { reservations_[address] = size; }

void LiveAllocations::reservation_freed(uint64_t address, uint64_t size) {
  reservations_.erase(address);
  // Freeing a reservation that still has mappings is an application error; forget them either way.
  erase_range(address, address + size, /*count_as_stale=*/false);
}

bool LiveAllocations::mapped(uint64_t address, uint64_t size, uint64_t handle, uint64_t handle_offset) {
  if (size == 0) return false;
  bool known = true;
  auto r = reservations_.upper_bound(address);
  if (r == reservations_.begin()) {
    known = false;
  } else {
    --r;
    known = address + size <= r->first + r->second;
  }
  Allocation a;
  a.base = address;
  a.size = size;
  a.kind = AllocationKind::Virtual;
  a.vmem_handle = handle;
  a.handle_offset = handle_offset;
  if (auto h = handles_.find(handle); h != handles_.end()) {
    a.pool = h->second.pool;
    a.placement = h->second.placement;
  } else {
    known = false;
  }
  add(a);
  return known;
}

void LiveAllocations::unmapped(uint64_t address, uint64_t size) {
  erase_range(address, address + size, /*count_as_stale=*/false);
}

std::vector<Allocation> LiveAllocations::snapshot() const {
  std::vector<Allocation> out;
  out.reserve(by_base_.size());
  for (const auto& [base, a] : by_base_) out.push_back(a);
  return out;
}

std::optional<Allocation> LiveAllocations::containing(uint64_t address) const {
  auto it = by_base_.upper_bound(address);
  if (it == by_base_.begin()) return std::nullopt;
  --it;
  if (address < it->second.base + it->second.size) return it->second;
  return std::nullopt;
}

uint64_t LiveAllocations::total_bytes() const {
  uint64_t total = 0;
  for (const auto& [base, a] : by_base_) total += a.size;
  return total;
}

}  // namespace rpl::collectors::amd
