// The capture itself, once every earlier submission and copy has finished: the regions to save (every live
// allocation, plus the kernel's code-object variables), the argument bytes, the before-snapshot, the launch,
// the after-snapshot, then the code object and the manifest (capture/manifest.hpp). Region contents are
// streamed through one bounded staging buffer into compressed blobs; nothing is held whole in host memory.
// UNVALIDATED ON AMD HARDWARE.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "capture/blob.hpp"
#include "capture/manifest.hpp"
#include "collectors/amd/amd_launch_record.hpp"
#include "collectors/amd/capture_injection/interceptors.hpp"
#include "rpl/version.hpp"

namespace rpl::hsa_capture {
namespace {

namespace amd = collectors::amd;
namespace fs = std::filesystem;
constexpr std::size_t kStagingBytes = std::size_t{32} << 20;

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string status_text(hsa_status_t status) {
  const char* text = nullptr;
  if (state().rt.core->hsa_status_string_fn(status, &text) == HSA_STATUS_SUCCESS && text) return text;
  return fmt::format("HSA status 0x{:x}", static_cast<unsigned>(status));
}

// A host buffer the GPU can copy into: page-aligned, locked for the agent when the runtime allows.
class Staging {
 public:
  explicit Staging(hsa_agent_t agent) {
    host_ = std::aligned_alloc(4096, kStagingBytes);
    if (!host_) throw std::bad_alloc();
    void* agent_ptr = nullptr;
    if (state().rt.memory_lock &&
        state().rt.memory_lock(host_, kStagingBytes, &agent, 1, &agent_ptr) == HSA_STATUS_SUCCESS && agent_ptr) {
      device_view_ = agent_ptr;
      locked_ = true;
    } else {
      device_view_ = host_;
    }
  }
  ~Staging() {
    if (locked_) state().rt.memory_unlock(host_);
    std::free(host_);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // Copies [address, address + size) of device-visible memory into the buffer; returns the HSA status.
  hsa_status_t fetch(uint64_t address, std::size_t size) {
    return state().rt.core->hsa_memory_copy_fn(device_view_, reinterpret_cast<const void*>(address), size);
  }
  const void* data() const { return host_; }

 private:
  void* host_ = nullptr;
  void* device_view_ = nullptr;
  bool locked_ = false;
};

struct Planned {
  capture::Region region;
  amd::AmdRegionDetail detail;
};

// Live allocations and the kernel's own code-object variables, sorted, disjoint (an overlap is left out
// and said so in `skipped`).
std::vector<Planned> plan_regions(const KernelInfo& kernel, nlohmann::json& skipped) {
  ToolState& s = state();
  std::lock_guard lock(s.mutex);
  std::vector<Planned> all;
  for (const amd::Allocation& a : s.allocations.snapshot()) {
    Planned p;
    p.region.address = a.base;
    p.region.size = a.size;
    p.region.kind = amd::to_string(a.kind);
    p.detail.placement = a.placement;
    if (a.pool && a.kind != amd::AllocationKind::Legacy) p.detail.pool_granule = pool_info({a.pool}).granule;
    all.push_back(std::move(p));
  }
  for (const GlobalVariable& g : s.globals) {
    if (g.executable != kernel.executable || g.agent != kernel.agent) continue;
    Planned p;
    p.region.address = g.address;
    p.region.size = g.size;
    p.region.kind = "global";
    p.region.symbol = g.name;
    all.push_back(std::move(p));
  }
  std::sort(all.begin(), all.end(), [](const Planned& a, const Planned& b) { return a.region.address < b.region.address; });
  std::vector<Planned> kept;
  uint64_t end = 0, next_id = 0;
  for (Planned& p : all) {
    if (p.region.address < end) {
      skipped.push_back({{"address", capture::to_hex(p.region.address)}, {"size", p.region.size},
                         {"kind", p.region.kind}, {"symbol", p.region.symbol}, {"why", "overlaps another region"}});
      continue;
    }
    end = p.region.address + p.region.size;
    p.region.id = p.detail.id = next_id++;
    kept.push_back(std::move(p));
  }
  return kept;
}

// Streams every region into its blob. Before the launch a region that cannot be copied is left out (and
// said so); after the launch that is an error, since the replay could not be verified.
void snapshot(const fs::path& dir, Staging& staging, std::vector<Planned>& regions, bool after, nlohmann::json& skipped) {
  std::vector<Planned> kept;
  for (Planned& p : regions) {
    capture::Region& r = p.region;
    capture::BlobWriter writer(dir, capture::region_blob_file(r.id, after));
    hsa_status_t failed = HSA_STATUS_SUCCESS;
    for (uint64_t off = 0; off < r.size && failed == HSA_STATUS_SUCCESS; off += kStagingBytes) {
      const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(kStagingBytes, r.size - off));
      failed = staging.fetch(r.address + off, n);
      if (failed == HSA_STATUS_SUCCESS) writer.write(staging.data(), n);
    }
    if (failed != HSA_STATUS_SUCCESS) {
      if (after)
        throw std::runtime_error(fmt::format("region {} at {} could be read before the launch but not after: {}", r.id,
                                             capture::to_hex(r.address), status_text(failed)));
      skipped.push_back({{"address", capture::to_hex(r.address)}, {"size", r.size}, {"kind", r.kind},
                         {"why", "cannot be copied: " + status_text(failed)}});
      continue;
    }
    (after ? r.after : r.before) = writer.finish();
    kept.push_back(std::move(p));
  }
  regions = std::move(kept);
}

std::string agent_text(hsa_agent_t agent, hsa_agent_info_t attribute) {
  char text[64] = {};
  state().rt.core->hsa_agent_get_info_fn(agent, attribute, text);
  return std::string(text, strnlen(text, sizeof text));
}

hsa_status_t first_isa_name(hsa_isa_t isa, void* data) {
  auto* out = static_cast<std::string*>(data);
  uint32_t length = 0;
  const CoreApiTable* core = state().rt.core;
  if (core->hsa_isa_get_info_alt_fn(isa, HSA_ISA_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
  std::string name(length, '\0');
  if (core->hsa_isa_get_info_alt_fn(isa, HSA_ISA_INFO_NAME, name.data()) == HSA_STATUS_SUCCESS)
    *out = name.c_str();  // drops a terminating NUL the length may include
  return HSA_STATUS_INFO_BREAK;
}

struct OrdinalSearch {
  uint64_t wanted;
  int index = 0, found = -1;
};
hsa_status_t count_gpus(hsa_agent_t agent, void* data) {
  auto* search = static_cast<OrdinalSearch*>(data);
  hsa_device_type_t type{};
  state().rt.core->hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
  if (agent.handle == search->wanted) search->found = search->index;
  ++search->index;
  return HSA_STATUS_SUCCESS;
}

amd::AmdLaunchRecord launch_record(const CaptureRequest& request) {
  const KernelInfo& k = *request.kernel;
  const CoreApiTable* core = state().rt.core;
  amd::AmdLaunchRecord r;
  r.dispatch = amd::decode_dispatch(std::span<const std::byte, amd::kAqlPacketSize>(
      static_cast<const std::byte*>(request.packet), amd::kAqlPacketSize));
  r.symbol_name = k.symbol_name;
  r.mangled = k.mangled;
  r.demangled = k.demangled;
  r.kernarg_size = k.kernarg_size;
  r.kernarg_alignment = k.kernarg_alignment;
  r.static_group_segment = k.group_segment_size;
  r.static_private_segment = k.private_segment_size;
  r.dynamic_callstack = k.dynamic_callstack;
  r.agent_name = agent_text(request.agent, HSA_AGENT_INFO_NAME);
  r.product_name = agent_text(request.agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_PRODUCT_NAME));
  core->hsa_agent_get_info_fn(request.agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &r.wavefront_size);
  core->hsa_agent_iterate_isas_fn(request.agent, first_isa_name, &r.isa_name);
  OrdinalSearch search{request.agent.handle};
  core->hsa_iterate_agents_fn(count_gpus, &search);
  r.ordinal = std::max(search.found, 0);
  return r;
}

}  // namespace

std::string write_capture(const CaptureRequest& request, const std::function<bool()>& run_kernel) {
  ToolState& s = state();
  const KernelInfo& kernel = *request.kernel;
  const fs::path dir = s.config.directory;
  try {
    if (!kernel.code_object || kernel.code_object->bytes.empty())
      throw std::runtime_error(fmt::format(
          "the code object holding {} was not seen when it was loaded (loaded through an interface the tool "
          "does not intercept, e.g. the deprecated hsa_executable_load_code_object)",
          kernel.mangled));
    fs::create_directories(dir);
    capture::Manifest m;
    nlohmann::json skipped = nlohmann::json::array();
    std::vector<Planned> regions = plan_regions(kernel, skipped);
    const amd::AmdLaunchRecord record = launch_record(request);

    Staging staging(request.agent);
    std::vector<std::byte> arguments(kernel.kernarg_size);
    if (!arguments.empty()) {
      const hsa_status_t st = staging.fetch(record.dispatch.kernarg_address, arguments.size());
      if (st != HSA_STATUS_SUCCESS)
        throw std::runtime_error(fmt::format("cannot read the kernel arguments at {}: {}",
                                             capture::to_hex(record.dispatch.kernarg_address), status_text(st)));
      std::memcpy(arguments.data(), staging.data(), arguments.size());
    }
    snapshot(dir, staging, regions, /*after=*/false, skipped);
    if (!run_kernel())
      throw std::runtime_error(fmt::format("the captured launch of {} did not finish within {} s", kernel.mangled,
                                           s.config.drain_timeout_s));
    snapshot(dir, staging, regions, /*after=*/true, skipped);

    std::vector<amd::AmdRegionDetail> details;
    for (Planned& p : regions) {
      details.push_back(p.detail);
      m.regions.push_back(std::move(p.region));
    }
    amd::fill_launch(m, record, details);
    m.kernel.match_regex = s.config.kernel_regex;
    m.kernel.dispatch_index = s.config.dispatch_index;
    m.code_object = capture::write_blob(dir, "code/kernel.hsaco.zst", kernel.code_object->bytes);
    m.arguments = capture::write_blob(dir, "arguments.bin.zst", arguments);
    m.parameters.push_back({0, arguments.size()});  // the whole kernarg segment, hidden arguments included
    m.platform = "rocm";
    m.producer = fmt::format("rocm-perf {} hsa-capture (HSA tools API)", kVersion);
    m.created_utc = utc_now();
    m.command = s.config.command;
    m.pid = getpid();
    m.vendor["skipped_regions"] = skipped;
    m.vendor["hsa"]["code_object_origin"] = kernel.code_object->origin;
    capture::write_manifest(dir, m);
    return fmt::format("captured launch {} of {} into {}: {} regions, {} bytes", s.config.dispatch_index,
                       kernel.mangled, dir.string(), m.regions.size(), capture::total_region_bytes(m));
  } catch (const std::exception& e) {
    write_status_file(dir, std::string("failed: ") + e.what());
    throw;
  }
}

}  // namespace rpl::hsa_capture
