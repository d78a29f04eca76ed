#pragma once
// Memory for the AMD replay: the GPU agent and its pools, the fixed-address reservations and their backing,
// and copies between host and the replayed address space (restore, verification, dumps). UNVALIDATED ON AMD
// HARDWARE.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "capture/replay_cache_state.hpp"
#include "capture/replay_report.hpp"
#include "capture/reservation_plan.hpp"
#include "collectors/amd/amd_launch_record.hpp"
#include "collectors/amd/replay_runner/hsa_runtime.hpp"

namespace rpl::hsa_replay {

// The GPU to replay on and the pools the replay allocates from.
struct Device {
  hsa_agent_t gpu{}, cpu{};
  std::string name;  // "gfx942"
  std::string isa;   // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  hsa_amd_memory_pool_t device_coarse{}, device_fine{}, host_fine{}, kernarg{};
  bool has_device_fine = false, has_host_fine = false, has_kernarg = false;
  double timestamp_hz = 0;  // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY
};

// The `ordinal`-th GPU agent (the first one when there are fewer). Throws rpl::Error(ProfilerFailed) when
// the system has no GPU agent or no coarse-grained device pool, InputInvalid when the GPU is not the
// captured architecture.
Device find_device(const HsaRuntime& rt, int ordinal, const std::string& captured_agent_name);

class ReplayMemory {
 public:
  ReplayMemory(const HsaRuntime& rt, const Device& device) : rt_(rt), device_(device) {}
  ~ReplayMemory();
  ReplayMemory(const ReplayMemory&) = delete;
  ReplayMemory& operator=(const ReplayMemory&) = delete;

  // Reserves every planned range at exactly its address; records each range and region in `report`.
  // A range the runtime places elsewhere is released at once. True when every range is exact.
  bool reserve(const std::vector<capture::PlannedMapping>& plan, const capture::Manifest& m,
               capture::ReplayReport& report);
  // Backs every reserved range with memory of its regions' captured placement, readable and writable by
  // the GPU. Throws rpl::Error(ProfilerFailed) naming the range when the runtime refuses.
  void map(const std::vector<capture::PlannedMapping>& plan, const capture::Manifest& m,
           const collectors::amd::AmdReplayLaunch& launch);

  // Copies between host memory and the replayed address space, through a pinned staging buffer.
  void write(uint64_t address, const std::byte* data, std::size_t size);
  void read(uint64_t address, std::byte* data, std::size_t size);
  // Every region's before-snapshot into its replay address.
  void restore(const std::filesystem::path& dir, const capture::Manifest& m, const std::vector<uint64_t>& addresses);

  // Pristine copies for restores between launches: in device memory when it fits, else host memory.
  // Returns "device" or "host".
  std::string keep_pristine(const capture::Manifest& m, const std::vector<uint64_t>& addresses);
  // Whether restore_pristine refills region i with the one word its before-state repeats (not a copy).
  bool restores_by_fill(std::size_t i) const { return i < fill_word_.size() && fill_word_[i] && rt_.memory_fill; }
  // Restricts restore_pristine of region i to these ranges (the pages the kernel writes; default: all of it).
  void set_restore_ranges(std::size_t i, std::vector<capture::ByteRange> ranges);
  // Rewrites [offset, offset + size) of region i from its pristine copy, so that the range is resident in the
  // GPU's caches before a warm launch (a blit through L2; unvalidated on AMD hardware whether it stays there).
  void touch(const capture::Manifest& m, const std::vector<uint64_t>& addresses, std::size_t i, uint64_t offset,
             uint64_t size);
  // The largest cache the agent reports (HSA_AGENT_INFO_CACHE_SIZE), in bytes; 0 if unknown.
  uint64_t cache_bytes();
  // The pristine copy back into every region i with regions[i] set.
  void restore_pristine(const capture::Manifest& m, const std::vector<uint64_t>& addresses, const std::vector<bool>& regions);
  // Evicts the GPU's caches before a cold launch: copies through a device buffer twice the largest cache the
  // agent reports (at least 512 MiB, MI300's Infinity Cache being 256 MiB).
  void flush_cache();

  void dump(const std::string& dump_dir, const capture::Manifest& m, const std::vector<uint64_t>& addresses);

 private:
  struct Mapping {
    uint64_t address = 0, size = 0;
    hsa_newer::VmemAllocHandle handle{};
    bool mapped = false;
  };
  void* staging();
  void copy(void* dst, const void* src, std::size_t size, const std::string& what);

  const HsaRuntime& rt_;
  const Device& device_;
  std::vector<std::pair<uint64_t, uint64_t>> reservations_;  // address, size
  std::vector<Mapping> mappings_;
  void* staging_ = nullptr;
  void* pristine_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  std::vector<uint64_t> pristine_offset_;
  std::vector<std::vector<capture::ByteRange>> restore_ranges_;  // per region (empty: all of it)
  std::vector<std::optional<uint32_t>> fill_word_;  // per region: the word its before-state repeats, if it does
};

}  // namespace rpl::hsa_replay
