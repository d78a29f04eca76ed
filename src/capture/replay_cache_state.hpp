#pragma once
// What a replay runner prepares before each timed launch so that the caches hold what they held in the
// application (capture/replay_runner.cpp: run_full_vm):
// - written_ranges: the parts of a region the kernel writes (bytes where the before-snapshot differs from the
//   after-snapshot or from a verification replay's result), so that restores copy those parts only, not whole
//   allocator blocks that would displace the kernel's inputs from L2;
// - parameter_read_set: the memory the kernel's parameters point into, read into L2 after it was flushed, as
//   when producer kernels have just written the kernel's inputs.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "capture/manifest.hpp"

namespace rpl::capture {

struct ByteRange {
  uint64_t offset = 0, size = 0;
  bool operator==(const ByteRange&) const = default;
};

// Pages (`page` bytes, the last one shorter) where `before` differs from any of `results` (each the region's
// bytes after a launch; an empty one is skipped), merged into ranges. Sizes must match `before` where non-empty.
std::vector<ByteRange> differing_pages(std::span<const std::byte> before, const std::vector<std::span<const std::byte>>& results,
                                       uint64_t page = 4096);

struct RegionRange {
  std::size_t region = 0;  // index into the manifest's regions
  ByteRange range;
  bool operator==(const RegionRange&) const = default;
};

// For every 8-byte-aligned value in the argument bytes that is an address inside a region (pointer parameters,
// pointers inside structures, the global address of a TMA descriptor), the region from the lowest such address
// to its end, less `excluded[region]` (what the kernel writes), in the order the arguments name them, until
// `budget` bytes. Regions placed by the loader (module variables) are left out.
std::vector<RegionRange> parameter_read_set(const Manifest& m, std::span<const std::byte> arguments,
                                            const std::vector<std::vector<ByteRange>>& excluded, uint64_t budget);

}  // namespace rpl::capture
