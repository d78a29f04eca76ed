#include "collectors/amd/replay_runner/replay_memory.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "capture/replay_runner.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::hsa_replay {
namespace {

namespace amd = collectors::amd;
using capture::to_hex;
constexpr std::size_t kStagingBytes = std::size_t{32} << 20;

struct AgentSearch {
  const HsaRuntime* rt;
  int wanted;
  int gpus = 0;
  Device device;
  bool found_gpu = false, found_cpu = false;
};

std::string agent_name(const HsaRuntime& rt, hsa_agent_t agent) {
  char text[64] = {};
  rt.agent_get_info(agent, HSA_AGENT_INFO_NAME, text);
  return std::string(text, strnlen(text, sizeof text));
}

hsa_status_t pick_agent(hsa_agent_t agent, void* data) {
  auto* s = static_cast<AgentSearch*>(data);
  hsa_device_type_t type{};
  if (s->rt->agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
  if (type == HSA_DEVICE_TYPE_CPU && !s->found_cpu) {
    s->device.cpu = agent;
    s->found_cpu = true;
  } else if (type == HSA_DEVICE_TYPE_GPU) {
    if (!s->found_gpu || s->gpus == s->wanted) s->device.gpu = agent;
    s->found_gpu = true;
    ++s->gpus;
  }
  return HSA_STATUS_SUCCESS;
}

struct PoolSearch {
  const HsaRuntime* rt;
  Device* device;
  bool gpu;
};

hsa_status_t pick_pool(hsa_amd_memory_pool_t pool, void* data) {
  auto* s = static_cast<PoolSearch*>(data);
  hsa_amd_segment_t segment{};
  bool allowed = false;
  uint32_t flags = 0;
  if (s->rt->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      segment != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  s->rt->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed);
  s->rt->pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if (!allowed) return HSA_STATUS_SUCCESS;
  Device& d = *s->device;
  if (s->gpu) {
    if (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) {
      if (!d.device_coarse.handle) d.device_coarse = pool;
    } else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !d.has_device_fine) {
      d.device_fine = pool;
      d.has_device_fine = true;
    }
  } else {
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !d.has_kernarg) {
      d.kernarg = pool;
      d.has_kernarg = true;
    }
    if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !d.has_host_fine) {
      d.host_fine = pool;
      d.has_host_fine = true;
    }
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t first_isa(hsa_isa_t isa, void* data) {
  auto* s = static_cast<std::pair<const HsaRuntime*, std::string*>*>(data);
  uint32_t length = 0;
  if (s->first->isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
  std::string name(length, '\0');
  if (s->first->isa_get_info_alt(isa, HSA_ISA_INFO_NAME, name.data()) == HSA_STATUS_SUCCESS) *s->second = name.c_str();
  return HSA_STATUS_INFO_BREAK;
}

}  // namespace

Device find_device(const HsaRuntime& rt, int ordinal, const std::string& captured_agent_name) {
  AgentSearch search{&rt, ordinal};
  rt.iterate_agents(pick_agent, &search);
  if (!search.found_gpu) throw Error(ExitCode::ProfilerFailed, "the HSA runtime reports no GPU agent: no AMD GPU here?");
  if (!search.found_cpu) throw Error(ExitCode::ProfilerFailed, "the HSA runtime reports no CPU agent");
  Device d = search.device;
  d.name = agent_name(rt, d.gpu);
  std::pair<const HsaRuntime*, std::string*> isa_search{&rt, &d.isa};
  rt.agent_iterate_isas(d.gpu, first_isa, &isa_search);
  if (!captured_agent_name.empty() && d.name != captured_agent_name)
    throw Error(ExitCode::InputInvalid, fmt::format("the capture was taken on {} but this GPU is {}: its code object "
                                                    "cannot run here",
                                                    captured_agent_name, d.name));
  PoolSearch gpu_pools{&rt, &d, true}, cpu_pools{&rt, &d, false};
  rt.iterate_pools(d.gpu, pick_pool, &gpu_pools);
  rt.iterate_pools(d.cpu, pick_pool, &cpu_pools);
  if (!d.device_coarse.handle)
    throw Error(ExitCode::ProfilerFailed, fmt::format("GPU {} has no coarse-grained memory pool the runtime can allocate from", d.name));
  uint64_t hz = 0;
  if (rt.system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &hz) != HSA_STATUS_SUCCESS || hz == 0)
    throw Error(ExitCode::ProfilerFailed, "the HSA runtime does not report its timestamp frequency");
  d.timestamp_hz = static_cast<double>(hz);
  return d;
}

ReplayMemory::~ReplayMemory() {
  for (const Mapping& m : mappings_) {
    if (m.mapped) rt_.vmem.unmap(reinterpret_cast<void*>(m.address), m.size);
    if (m.handle.handle) rt_.vmem.handle_release(m.handle);
  }
  for (const auto& [address, size] : reservations_) rt_.vmem.address_free(reinterpret_cast<void*>(address), size);
  if (staging_) rt_.pool_free(staging_);
  if (pristine_) rt_.pool_free(pristine_);
  if (flush_) rt_.pool_free(flush_);
}

bool ReplayMemory::reserve(const std::vector<capture::PlannedMapping>& plan, const capture::Manifest& m,
                           capture::ReplayReport& report) {
  bool all_exact = true;
  for (const capture::PlannedMapping& p : plan) {
    capture::RangeReport r{p.address, p.size, "exact", 0, ""};
    void* got = nullptr;
    const hsa_status_t status = rt_.vmem.address_reserve(&got, p.size, p.address, 0);
    if (status != HSA_STATUS_SUCCESS) {
      r.status = "failed";
      r.error = rt_.describe(status);
    } else if (reinterpret_cast<uint64_t>(got) != p.address) {
      r.status = "relocated";  // never used: the kernel runs at the captured addresses or not at all
      r.got = reinterpret_cast<uint64_t>(got);
      rt_.vmem.address_free(got, p.size);
    } else {
      reservations_.emplace_back(p.address, p.size);
    }
    all_exact = all_exact && r.status == "exact";
    report.ranges.push_back(r);
    for (std::size_t index : p.regions) {
      const capture::Region& g = m.regions[index];
      report.regions.push_back({g.id, g.address, g.size, g.kind, g.symbol, r.status, r.status == "exact" ? g.address : 0});
    }
  }
  for (const capture::Region& g : m.regions)
    if (!capture::reserved_by_replay(g)) report.regions.push_back({g.id, g.address, g.size, g.kind, g.symbol, "loader", 0});
  std::sort(report.regions.begin(), report.regions.end(),
            [](const capture::RegionReport& a, const capture::RegionReport& b) { return a.address < b.address; });
  return all_exact;
}

void ReplayMemory::map(const std::vector<capture::PlannedMapping>& plan, const capture::Manifest& m,
                       const amd::AmdReplayLaunch& launch) {
  for (const capture::PlannedMapping& p : plan) {
    // The range's memory kind: its regions' captured placement; when they disagree, device memory.
    amd::Placement placement = amd::Placement::Unknown;
    for (std::size_t index : p.regions) {
      const amd::Placement q = amd::placement_of(launch, m.regions[index].id);
      placement = placement == amd::Placement::Unknown || placement == q ? q : amd::Placement::DeviceCoarse;
    }
    hsa_amd_memory_pool_t pool = device_.device_coarse;
    if (placement == amd::Placement::DeviceFine && device_.has_device_fine) pool = device_.device_fine;
    if (placement == amd::Placement::Host && device_.has_host_fine) pool = device_.host_fine;
    Mapping mapping{p.address, p.size, {}, false};
    hsa_status_t status = rt_.vmem.handle_create(pool, p.size, hsa_newer::kMemoryTypeNone, 0, &mapping.handle);
    if (status != HSA_STATUS_SUCCESS && pool.handle != device_.device_coarse.handle) {
      std::fprintf(stderr, "rpl_replay_hsa: warning: range %s (%s memory in the capture) is backed by device memory: %s\n",
                   to_hex(p.address).c_str(), amd::to_string(placement), rt_.describe(status).c_str());
      status = rt_.vmem.handle_create(device_.device_coarse, p.size, hsa_newer::kMemoryTypeNone, 0, &mapping.handle);
    }
    if (status != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::ProfilerFailed, fmt::format("hsa_amd_vmem_handle_create of {} bytes for {} failed: {}",
                                                        p.size, to_hex(p.address), rt_.describe(status)));
    mappings_.push_back(mapping);
    status = rt_.vmem.map(reinterpret_cast<void*>(p.address), p.size, 0, mapping.handle, 0);
    if (status != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::ProfilerFailed, fmt::format("hsa_amd_vmem_map at {} ({} bytes) failed: {}", to_hex(p.address),
                                                        p.size, rt_.describe(status)));
    mappings_.back().mapped = true;
    // The GPU only: the host reaches this memory through hsa_memory_copy.
    const hsa_newer::MemoryAccessDesc access{HSA_ACCESS_PERMISSION_RW, device_.gpu};
    status = rt_.vmem.set_access(reinterpret_cast<void*>(p.address), p.size, &access, 1);
    if (status != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::ProfilerFailed, fmt::format("hsa_amd_vmem_set_access at {} failed: {}", to_hex(p.address),
                                                        rt_.describe(status)));
  }
}

void* ReplayMemory::staging() {
  if (staging_) return staging_;
  const hsa_amd_memory_pool_t pool = device_.has_host_fine ? device_.host_fine : device_.kernarg;
  if (!device_.has_host_fine && !device_.has_kernarg)
    throw Error(ExitCode::ProfilerFailed, "no host memory pool for staging copies");
  hsa_status_t status = rt_.pool_allocate(pool, kStagingBytes, 0, &staging_);
  if (status == HSA_STATUS_SUCCESS) status = rt_.agents_allow_access(1, &device_.gpu, nullptr, staging_);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("allocating a {} MiB staging buffer failed: {}", kStagingBytes >> 20,
                                                      rt_.describe(status)));
  return staging_;
}

void ReplayMemory::copy(void* dst, const void* src, std::size_t size, const std::string& what) {
  const hsa_status_t status = rt_.memory_copy(dst, src, size);
  if (status != HSA_STATUS_SUCCESS)
    throw Error(ExitCode::ProfilerFailed, fmt::format("{} failed: {}", what, rt_.describe(status)));
}

void ReplayMemory::write(uint64_t address, const std::byte* data, std::size_t size) {
  for (std::size_t off = 0; off < size; off += kStagingBytes) {
    const std::size_t n = std::min(kStagingBytes, size - off);
    std::memcpy(staging(), data + off, n);
    copy(reinterpret_cast<void*>(address + off), staging(), n, fmt::format("copying {} bytes to {}", n, to_hex(address + off)));
  }
}

void ReplayMemory::read(uint64_t address, std::byte* data, std::size_t size) {
  for (std::size_t off = 0; off < size; off += kStagingBytes) {
    const std::size_t n = std::min(kStagingBytes, size - off);
    copy(staging(), reinterpret_cast<const void*>(address + off), n,
         fmt::format("reading {} bytes at {}", n, to_hex(address + off)));
    std::memcpy(data + off, staging(), n);
  }
}

void ReplayMemory::restore(const std::filesystem::path& dir, const capture::Manifest& m,
                           const std::vector<uint64_t>& addresses) {
  fill_word_.assign(m.regions.size(), std::nullopt);
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    const capture::Region& g = m.regions[i];
    if (!g.before) continue;
    uint64_t offset = 0;
    capture::RepeatedWord repeated;
    capture::read_blob(dir, *g.before, [&](const std::byte* data, std::size_t n) {
      repeated.add(data, n);
      write(addresses[i] + offset, data, n);
      offset += n;
    });
    fill_word_[i] = repeated.word();
  }
}

std::string ReplayMemory::keep_pristine(const capture::Manifest& m, const std::vector<uint64_t>& addresses) {
  uint64_t total = 0;
  pristine_offset_.assign(m.regions.size(), 0);
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    pristine_offset_[i] = total;
    if (m.regions[i].before && !restores_by_fill(i)) total += (m.regions[i].size + 255) & ~uint64_t{255};
  }
  if (total == 0) return "device";
  std::string where = "device";
  if (rt_.pool_allocate(device_.device_coarse, total, 0, &pristine_) != HSA_STATUS_SUCCESS) {
    where = "host";
    const hsa_amd_memory_pool_t pool = device_.has_host_fine ? device_.host_fine : device_.kernarg;
    hsa_status_t status = rt_.pool_allocate(pool, total, 0, &pristine_);
    if (status == HSA_STATUS_SUCCESS) status = rt_.agents_allow_access(1, &device_.gpu, nullptr, pristine_);
    if (status != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::ProfilerFailed, fmt::format("allocating {} bytes for restores between iterations failed: {}",
                                                        total, rt_.describe(status)));
  }
  for (std::size_t i = 0; i < m.regions.size(); ++i)
    if (m.regions[i].before && !restores_by_fill(i))
      copy(static_cast<char*>(pristine_) + pristine_offset_[i], reinterpret_cast<const void*>(addresses[i]),
           m.regions[i].size, "keeping a pristine copy");
  return where;
}

void ReplayMemory::set_restore_ranges(std::size_t i, std::vector<capture::ByteRange> ranges) {
  if (restore_ranges_.size() <= i) restore_ranges_.resize(i + 1);
  restore_ranges_[i] = std::move(ranges);
}

void ReplayMemory::restore_pristine(const capture::Manifest& m, const std::vector<uint64_t>& addresses,
                                    const std::vector<bool>& regions) {
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    if (!regions[i] || !m.regions[i].before) continue;
    const std::vector<capture::ByteRange> whole = {{0, m.regions[i].size}};
    const auto& ranges = i < restore_ranges_.size() && !restore_ranges_[i].empty() ? restore_ranges_[i] : whole;
    for (const capture::ByteRange& r : ranges) {
      void* to = reinterpret_cast<void*>(addresses[i] + r.offset);
      if (restores_by_fill(i)) {  // one repeated word, as the application's memset left it
        const hsa_status_t status = rt_.memory_fill(to, *fill_word_[i], r.size / 4);
        if (status != HSA_STATUS_SUCCESS)
          throw Error(ExitCode::ProfilerFailed, fmt::format("restoring region {} between launches (fill) failed: {}",
                                                            m.regions[i].id, rt_.describe(status)));
        continue;
      }
      copy(to, static_cast<char*>(pristine_) + pristine_offset_[i] + r.offset, r.size, "restoring memory between launches");
    }
  }
}

void ReplayMemory::touch(const capture::Manifest& m, const std::vector<uint64_t>& addresses, std::size_t i,
                         uint64_t offset, uint64_t size) {
  if (!pristine_ || !m.regions[i].before || restores_by_fill(i)) return;
  copy(reinterpret_cast<void*>(addresses[i] + offset), static_cast<char*>(pristine_) + pristine_offset_[i] + offset, size,
       "reading a kernel input into the caches (warm launch)");
}

uint64_t ReplayMemory::cache_bytes() {
  uint32_t caches[4] = {0, 0, 0, 0};  // HSA_AGENT_INFO_CACHE_SIZE: L1..L4 in bytes
  if (rt_.agent_get_info(device_.gpu, HSA_AGENT_INFO_CACHE_SIZE, caches) != HSA_STATUS_SUCCESS) return 0;
  return *std::max_element(std::begin(caches), std::end(caches));
}

void ReplayMemory::flush_cache() {
  if (!flush_) {
    uint32_t caches[4] = {0, 0, 0, 0};  // HSA_AGENT_INFO_CACHE_SIZE: L1..L4 in bytes
    std::size_t largest = 0;
    if (rt_.agent_get_info(device_.gpu, HSA_AGENT_INFO_CACHE_SIZE, caches) == HSA_STATUS_SUCCESS)
      for (uint32_t c : caches) largest = std::max<std::size_t>(largest, c);
    flush_bytes_ = std::max(largest * 2, std::size_t{512} << 20);
    const hsa_status_t status = rt_.pool_allocate(device_.device_coarse, flush_bytes_, 0, &flush_);
    if (status != HSA_STATUS_SUCCESS)
      throw Error(ExitCode::ProfilerFailed, fmt::format("allocating {} bytes to flush the caches (--cache cold) failed: {}",
                                                        flush_bytes_, rt_.describe(status)));
  }
  const std::size_t half = flush_bytes_ / 2;
  copy(static_cast<char*>(flush_) + half, flush_, half, "flushing the caches (--cache cold)");
}

void ReplayMemory::dump(const std::string& dump_dir, const capture::Manifest& m, const std::vector<uint64_t>& addresses) {
  std::filesystem::create_directories(dump_dir);
  std::vector<std::byte> buffer(kStagingBytes);
  for (std::size_t i = 0; i < m.regions.size(); ++i) {
    const capture::Region& g = m.regions[i];
    write_file_atomically((std::filesystem::path(dump_dir) / fmt::format("r{:06d}.bin", g.id)).string(), [&](std::FILE* f) {
      for (uint64_t off = 0; off < g.size; off += kStagingBytes) {
        const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(kStagingBytes, g.size - off));
        read(addresses[i] + off, buffer.data(), n);
        std::fwrite(buffer.data(), 1, n, f);
      }
    });
  }
}

}  // namespace rpl::hsa_replay
