#pragma once
// The set of device memory ranges an application holds, kept up to date from allocation and free calls seen
// by a capture collector. Vendor-neutral; thread-safe (applications allocate from several threads).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace rpl::capture {

struct LiveRange {
  uint64_t address = 0;
  uint64_t size = 0;
  std::string kind;  // see Region::kind
};

class LiveRegions {
 public:
  // A new allocation. A range that overlaps ranges already held replaces them: the application could only
  // get this memory back from the driver after freeing them, so a missed free must not leave stale entries.
  void add(uint64_t address, uint64_t size, const std::string& kind);
  // A free by base address (cuMemFree, hsa_amd_memory_pool_free); false when it was not held.
  bool remove(uint64_t address);
  // An unmap of [address, address + size): removes every range inside it (VMM mappings are unmapped whole).
  std::size_t remove_within(uint64_t address, uint64_t size);

  std::vector<LiveRange> snapshot() const;  // sorted by address, disjoint
  std::size_t count() const;
  uint64_t total_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::map<uint64_t, LiveRange> ranges_;  // by address
};

}  // namespace rpl::capture
