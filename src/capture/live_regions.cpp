#include "capture/live_regions.hpp"

namespace rpl::capture {

void LiveRegions::add(uint64_t address, uint64_t size, const std::string& kind) {
  if (size == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Drop every held range that overlaps [address, address + size).
  auto it = ranges_.lower_bound(address);
  if (it != ranges_.begin() && std::prev(it)->second.address + std::prev(it)->second.size > address) --it;
  while (it != ranges_.end() && it->first < address + size) it = ranges_.erase(it);
  ranges_.emplace(address, LiveRange{address, size, kind});
}

bool LiveRegions::remove(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  return ranges_.erase(address) > 0;
}

std::size_t LiveRegions::remove_within(uint64_t address, uint64_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t removed = 0;
  for (auto it = ranges_.lower_bound(address); it != ranges_.end() && it->first + it->second.size <= address + size;) {
    it = ranges_.erase(it);
    ++removed;
  }
  return removed;
}

std::vector<LiveRange> LiveRegions::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<LiveRange> out;
  out.reserve(ranges_.size());
  for (const auto& [_, r] : ranges_) out.push_back(r);
  return out;
}

std::size_t LiveRegions::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ranges_.size();
}

uint64_t LiveRegions::total_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t total = 0;
  for (const auto& [_, r] : ranges_) total += r.size;
  return total;
}

}  // namespace rpl::capture
