#include "collectors/nvidia/replay_runner/cuda_replay.hpp"

#include <cuda.h>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <span>

#include "capture/address_steering.hpp"  // restart_in_fresh_process
#include "capture/elf_symbols.hpp"
#include "capture/reservation_plan.hpp"
#include "collectors/nvidia/cuda_driver/cu_error.hpp"
#include "collectors/nvidia/cuda_driver/cuda_attributes.hpp"
#include "collectors/nvidia/replay_runner/cache_kernels.hpp"
#include "collectors/nvidia/replay_runner/kernel_activity_timer.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::cuda_capture {
namespace fs = std::filesystem;
using capture::Region;
using capture::to_hex;

namespace {

constexpr std::size_t kStagingBytes = std::size_t{32} << 20;
// The driver honours a cuMemAddressReserve hint only at 32 MiB alignment: an unaligned hint comes back rounded up
// to the next 32 MiB (seen on H100, driver 580). RPL_REPLAY_RESERVE_ALIGN overrides it (ReplayKnobs).
constexpr uint64_t kReservationAlignment = uint64_t{32} << 20;
// A captured range this process cannot have (its own mappings are there): that many fresh processes are tried.
constexpr int kProcessAttempts = 3;

uint64_t reservation_alignment(uint64_t granularity, const capture::ReplayKnobs& knobs) {
  const uint64_t a = knobs.reservation_alignment ? knobs.reservation_alignment : kReservationAlignment;
  return std::max(a, granularity);
}
using Clock = std::chrono::steady_clock;

void check(CUresult r, const std::string& what, ExitCode code = ExitCode::ProfilerFailed) {
  if (r != CUDA_SUCCESS) throw Error(code, fmt::format("{} failed: {}", what, cu_error(r)));
}

double since_ns(Clock::time_point t) { return std::chrono::duration<double, std::nano>(Clock::now() - t).count(); }

std::vector<std::byte> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("cannot read code object {}", path));
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (chars.empty()) throw Error(ExitCode::InputInvalid, fmt::format("code object {} is empty", path));
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

// CUPTI's kernel activity is enabled once per process: every job of a batch times its launches with it.
KernelActivityTimer& process_kernel_timer(bool wanted, bool& on, std::string& why_not) {
  // Never destroyed: disabling CUPTI from a static destructor would run after the driver's own teardown.
  static KernelActivityTimer* timer = new KernelActivityTimer;
  static bool started = false, ok = false;
  static std::string why;
  if (!started) {
    started = true;
    ok = timer->start(wanted, why);
  }
  on = ok;
  why_not = why;
  return *timer;
}

// A batch's reserved and mapped ranges, kept from one job to the next while the jobs' plans are the same (the
// inputs and timing rounds of one capture): on the H200 (driver 580) a range freed and reserved again in the same
// process relocated, and so did a second capture's layout; only the process's first layout got its hints.
struct KeptRanges {
  std::vector<std::pair<CUdeviceptr, std::size_t>> reserved, mapped;
  std::vector<std::pair<uint64_t, uint64_t>> shape;  // reservations then mappings: (address, size)
  void release() {
    for (const auto& [address, size] : mapped) cuMemUnmap(address, size);
    for (const auto& [address, size] : reserved) cuMemAddressFree(address, size);
    *this = {};
  }
};
KeptRanges& kept_ranges() {
  static KeptRanges kept;
  return kept;
}

// A batch's jobs restore the same captured state again and again (every timing round of a candidate restores its
// capture): each before-snapshot is decompressed once per process and kept, up to a total size.
const std::vector<std::byte>* cached_blob(const fs::path& dir, const capture::BlobRef& ref) {
  constexpr std::size_t kCacheBytes = std::size_t{4} << 30;
  static std::map<std::string, std::vector<std::byte>> cache;
  static std::size_t cached = 0;
  const std::string key = (dir / ref.file).string();
  if (auto it = cache.find(key); it != cache.end()) return &it->second;
  if (cached + ref.size > kCacheBytes) return nullptr;
  std::vector<std::byte>& bytes = cache[key];
  bytes = capture::read_blob(dir, ref);
  cached += bytes.size();
  return &bytes;
}

std::vector<std::pair<uint64_t, uint64_t>> plan_shape(const std::vector<capture::PlannedReservation>& plan) {
  std::vector<std::pair<uint64_t, uint64_t>> shape;
  for (const auto& r : plan) shape.emplace_back(r.address, r.size);
  for (const auto& r : plan)
    for (const auto& m : r.mappings) shape.emplace_back(m.address, m.size);
  return shape;
}

std::vector<std::byte> from_hex_bytes(const std::string& hex) {
  std::vector<std::byte> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::byte(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

class Replay : public capture::ReplayDevice {
 public:
  Replay(const ReplayOptions& o, capture::ReplayReport& report) : o_(o), report_(report) {}
  ~Replay() override;
  void run();

  // capture::ReplayDevice, for capture::run_full_vm
  void restore(const std::vector<bool>& regions) override;
  double launch() override;
  void flush_cache() override;
  bool restores_by_fill(std::size_t region) const override { return fill_word_.at(region).has_value(); }
  void set_restore_ranges(std::size_t region, std::vector<capture::ByteRange> ranges) override {
    restore_ranges_.resize(m_.regions.size());
    restore_ranges_.at(region) = std::move(ranges);
  }
  void touch(std::size_t region, uint64_t offset, uint64_t size) override {
    cache_kernels().touch(device_address(region) + offset, size, stream_);
  }
  void flush_code() override { cache_kernels().evict_code(stream_); }
  bool can_flush_code() const override { return code_eviction_ready_; }
  uint64_t cache_bytes() override {
    int l2 = 0;
    if (!cache_kernel_ready(&CacheKernels::touch_ready)) return 0;  // nothing can be read in
    return cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_) == CUDA_SUCCESS ? uint64_t(l2) : 0;
  }
  void read_back(std::size_t region, uint64_t offset, std::byte* into, std::size_t size) override;

 private:
  void reserve();
  void map_memory();
  void load_code_object();
  void restore_from_capture();
  void restore_region_from_capture(std::size_t i, CUstream stream);
  void keep_pristine_copies();
  void prepare_launch();
  void dump();
  CUdeviceptr device_address(std::size_t region) const { return replay_address_[region]; }
  // One set per process: a batch's jobs share the driver-compiled kernels (never destroyed: the process ends).
  CacheKernels& cache_kernels() {
    static CacheKernels* shared = nullptr;
    if (!shared) shared = new CacheKernels(device_);
    return *shared;
  }
  // Whether a cache kernel compiles here (the driver's PTX compiler); if not, says so once and the replay
  // goes on without it (the replay document's cache_preparation then does not claim it).
  bool cache_kernel_ready(bool (CacheKernels::*ready)(std::string&)) {
    std::string why;
    if ((cache_kernels().*ready)(why)) return true;
    std::fprintf(stderr, "rpl_replay_cuda: warning: %s\n", why.c_str());
    return false;
  }

  const ReplayOptions& o_;
  capture::ReplayReport& report_;
  capture::Manifest m_;
  fs::path dir_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  std::vector<capture::PlannedReservation> plan_;
  std::vector<CUdeviceptr> replay_address_;  // per region
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  std::vector<std::byte> arguments_;
  void* staging_ = nullptr;
  CUdeviceptr pristine_device_ = 0;
  void* pristine_host_ = nullptr;
  std::vector<uint64_t> pristine_offset_;
  std::vector<std::optional<uint32_t>> fill_word_;  // per region: the word its before-state repeats, if it does
  std::vector<std::vector<capture::ByteRange>> restore_ranges_;  // per region: what restore() copies (empty: all)
  bool code_eviction_ready_ = false;
  CUstream stream_ = nullptr;
  CUevent start_event_ = nullptr, stop_event_ = nullptr;
  KernelActivityTimer* kernel_timer_ = nullptr;  // CUPTI kernel activity: the in-app collector's time source
  bool kernel_timer_on_ = false;
  // What this replay reserved and mapped, released when it ends (a batch's next job may want the same ranges).
  std::vector<std::pair<CUdeviceptr, std::size_t>> reserved_, mapped_;
  bool adopted_ = false;  // the ranges are the previous job's, kept (KeptRanges)
  CUlaunchConfig config_{};
  std::vector<CUlaunchAttribute> attributes_;
  std::vector<void*> parameter_pointers_;
  unsigned launches_ = 0;
  CUdeviceptr flush_buffer_ = 0;
  std::size_t flush_bytes_ = 0;
  unsigned flush_value_ = 0;
  Clock::time_point start_ = Clock::now();
};

Replay::~Replay() {
  if (stream_) cuStreamSynchronize(stream_);
  if (module_) cuModuleUnload(module_);
  // In a batch, a replay that had every range keeps them for the next job of the same plan.
  const bool keep = o_.in_batch && !mapped_.empty() && report_.all_exact();
  if (keep) {
    kept_ranges().release();  // at most one plan kept
    kept_ranges() = {reserved_, mapped_, plan_shape(plan_)};
  } else {
    KeptRanges{reserved_, mapped_, {}}.release();
  }
  if (flush_buffer_) cuMemFree(flush_buffer_);
  if (start_event_) cuEventDestroy(start_event_);
  if (stop_event_) cuEventDestroy(stop_event_);
  if (stream_) cuStreamDestroy(stream_);
  if (staging_) cuMemFreeHost(staging_);
  if (pristine_host_) cuMemFreeHost(pristine_host_);
  if (pristine_device_) cuMemFree(pristine_device_);
}

void Replay::reserve() {
  // The driver only: no context, no allocation has happened yet in this process.
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device_;
  std::size_t granularity = 0;
  check(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), "cuMemGetAllocationGranularity");
  report_.granularity = granularity;
  report_.reservation_alignment = reservation_alignment(granularity, o_.knobs);
  plan_ = capture::plan_reservations(m_, granularity, report_.reservation_alignment);
  KeptRanges& kept = kept_ranges();
  adopted_ = !kept.shape.empty() && kept.shape == plan_shape(plan_);
  if (adopted_) {
    reserved_ = kept.reserved, mapped_ = kept.mapped;
    kept = {};
  }  // another plan: the kept ranges stay (a later job may want them); this job relocates if its hints are refused
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    const auto& p = plan_[i];
    capture::RangeReport r{p.address, p.size, "exact", 0, ""};
    CUdeviceptr got = CUdeviceptr(p.address);
    CUresult res = adopted_ ? CUDA_SUCCESS : cuMemAddressReserve(&got, p.size, granularity, CUdeviceptr(p.address), 0);
    if (res != CUDA_SUCCESS && !context_) {
      // Some drivers want a context for VMM calls: create it (its own allocations then avoid our ranges only
      // where they are reserved already), then try again.
      check(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
      check(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
      std::fprintf(stderr, "rpl_replay_cuda: note: cuMemAddressReserve without a context: %s; retried with one\n",
                   cu_error(res).c_str());
      res = cuMemAddressReserve(&got, p.size, granularity, CUdeviceptr(p.address), 0);
    }
    if (res != CUDA_SUCCESS) {
      r.status = "failed";
      r.error = cu_error(res);
    } else if (got != CUdeviceptr(p.address)) {
      // The hint is silently ignored on a collision: never run at a different address.
      r.status = "relocated";
      r.got = got;
      cuMemAddressFree(got, p.size);
    } else if (!adopted_) {
      reserved_.emplace_back(got, p.size);
    }
    report_.ranges.push_back(r);
    for (const auto& map : p.mappings)
      for (std::size_t reg : map.regions) {
        const Region& g = m_.regions[reg];
        report_.regions.push_back({g.id, g.address, g.size, g.kind, g.symbol, r.status, r.status == "exact" ? g.address : 0});
      }
  }
  for (const Region& g : m_.regions)
    if (!capture::reserved_by_replay(g)) report_.regions.push_back({g.id, g.address, g.size, g.kind, g.symbol, "loader", 0});
  std::sort(report_.regions.begin(), report_.regions.end(),
            [](const capture::RegionReport& a, const capture::RegionReport& b) { return a.address < b.address; });
}

void Replay::map_memory() {
  if (adopted_) {
    // The previous job's memory: what a region without a before-snapshot holds is cleared, as fresh memory is.
    for (std::size_t i = 0; i < m_.regions.size(); ++i)
      if (capture::reserved_by_replay(m_.regions[i]) && !m_.regions[i].before)
        check(cuMemsetD8(CUdeviceptr(m_.regions[i].address), 0, m_.regions[i].size), "clearing a region for the next job");
    return;
  }
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device_;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  for (const auto& reservation : plan_)
    for (const auto& p : reservation.mappings) {  // only the granules that regions occupy get memory
      CUmemGenericAllocationHandle handle = 0;
      check(cuMemCreate(&handle, p.size, &prop, 0), fmt::format("cuMemCreate of {} bytes for {}", p.size, to_hex(p.address)));
      CUresult r = cuMemMap(CUdeviceptr(p.address), p.size, 0, handle, 0);
      cuMemRelease(handle);  // the mapping keeps the memory
      check(r, fmt::format("cuMemMap at {}", to_hex(p.address)));
      mapped_.emplace_back(CUdeviceptr(p.address), p.size);
      check(cuMemSetAccess(CUdeviceptr(p.address), p.size, &access, 1), fmt::format("cuMemSetAccess at {}", to_hex(p.address)));
    }
}

void Replay::load_code_object() {
  std::vector<std::byte> image = o_.code_object.empty() ? capture::read_blob(dir_, m_.code_object) : read_file_bytes(o_.code_object);
  image.push_back(std::byte{0});  // PTX text must be terminated; harmless after an ELF image
  std::string what = o_.code_object.empty() ? "the captured cubin" : o_.code_object;
  check(cuModuleLoadData(&module_, image.data()), "loading " + what + " (built for another GPU?)", ExitCode::InputInvalid);
  const std::string& name = m_.kernel.mangled_name;
  if (cuModuleGetFunction(&function_, module_, name.c_str()) != CUDA_SUCCESS)
    throw Error(ExitCode::InputInvalid, fmt::format("{} holds no kernel named {}", what, name));
  // The parameter layout must be the captured one: another build of the same kernel, not another kernel.
  std::vector<capture::Parameter> layout;
  for (std::size_t i = 0;; ++i) {
    std::size_t off = 0, size = 0;
    if (cuFuncGetParamInfo(function_, i, &off, &size) != CUDA_SUCCESS) break;
    layout.push_back({off, size});
  }
  bool same = layout.size() == m_.parameters.size();
  for (std::size_t i = 0; same && i < layout.size(); ++i)
    same = layout[i].offset == m_.parameters[i].offset && layout[i].size == m_.parameters[i].size;
  bool captured_whole_buffer = layout.empty() || (m_.parameters.size() == 1 && m_.parameters[0].offset == 0);
  if (!same && !(captured_whole_buffer && o_.code_object.empty()))
    throw Error(ExitCode::InputInvalid, fmt::format("{} in {} takes {} parameters of another layout than the captured "
                                                    "launch ({} parameters)", name, what, layout.size(), m_.parameters.size()));
  for (const auto& a : m_.function_attributes) {
    int current = 0;
    auto id = CUfunction_attribute(a.id);
    if (cuFuncGetAttribute(&current, id, function_) == CUDA_SUCCESS && current == a.value) continue;
    if (CUresult r = cuFuncSetAttribute(function_, id, int(a.value)); r != CUDA_SUCCESS)
      std::fprintf(stderr, "rpl_replay_cuda: warning: cannot set function attribute %s=%lld: %s\n", a.name.c_str(),
                   (long long)a.value, cu_error(r).c_str());
  }
  // Module variables: where the loader put them in this process. A rebuilt code object (the optimizer's) names
  // file-local variables with its own translation-unit hashes (capture::same_variable_in_build).
  std::optional<std::vector<capture::ElfSymbol>> symbols;  // read when first needed
  for (std::size_t i = 0; i < m_.regions.size(); ++i) {
    const Region& g = m_.regions[i];
    if (capture::reserved_by_replay(g)) continue;
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    CUresult found = cuModuleGetGlobal(&ptr, &bytes, module_, g.symbol.c_str());
    if (found != CUDA_SUCCESS && !o_.code_object.empty()) {
      if (!symbols) {
        symbols.emplace();
        try {
          symbols = capture::read_elf_symbols(std::span<const std::byte>(image.data(), image.size() - 1));
        } catch (const capture::ElfFormatError&) {  // PTX, not an ELF: names as compiled
        }
      }
      const std::string same = capture::same_variable_in_build(*symbols, g.symbol);
      if (!same.empty() && same != g.symbol) found = cuModuleGetGlobal(&ptr, &bytes, module_, same.c_str());
    }
    if (found != CUDA_SUCCESS)
      throw Error(ExitCode::InputInvalid, fmt::format("{} has no variable {} (captured: {} bytes)", what, g.symbol, g.size));
    if (bytes != g.size)
      throw Error(ExitCode::InputInvalid, fmt::format("variable {} in {} has {} bytes; the capture has {}", g.symbol, what, bytes, g.size));
    replay_address_[i] = ptr;
    for (auto& r : report_.regions)
      if (r.id == g.id) r.replay_address = ptr;
  }
}

void Replay::restore_from_capture() {
  fill_word_.assign(m_.regions.size(), std::nullopt);
  for (std::size_t i = 0; i < m_.regions.size(); ++i) restore_region_from_capture(i, nullptr);
}

// Through the pinned staging buffer; with a stream, that stream's earlier work finishes first.
void Replay::restore_region_from_capture(std::size_t i, CUstream stream) {
  const Region& g = m_.regions[i];
  if (!g.before) return;
  if (stream) check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  uint64_t off = 0;
  std::size_t fill = 0;
  capture::RepeatedWord repeated;
  auto flush = [&] {
    check(cuMemcpyHtoD(device_address(i) + off, staging_, fill), fmt::format("restoring region {} at {}", g.id, to_hex(g.address)));
    off += fill;
    fill = 0;
  };
  auto take = [&](const std::byte* d, std::size_t n) {
    if (!stream) repeated.add(d, n);
    while (n) {
      std::size_t take = std::min(n, kStagingBytes - fill);
      std::memcpy(static_cast<std::byte*>(staging_) + fill, d, take);
      fill += take, d += take, n -= take;
      if (fill == kStagingBytes) flush();
    }
  };
  const std::vector<std::byte>* kept = o_.in_batch ? cached_blob(dir_, *g.before) : nullptr;
  if (kept) take(kept->data(), kept->size());
  else capture::read_blob(dir_, *g.before, take);
  if (fill) flush();
  if (!stream) fill_word_[i] = repeated.word();
}

void Replay::keep_pristine_copies() {
  uint64_t total = 0;
  pristine_offset_.assign(m_.regions.size(), 0);
  for (std::size_t i = 0; i < m_.regions.size(); ++i) {
    pristine_offset_[i] = total;
    if (m_.regions[i].before && !fill_word_[i]) total += (m_.regions[i].size + 255) & ~uint64_t(255);
  }
  report_.restore_source = "device";
  if (total == 0) return;
  // Device memory when it fits (fast restores); pinned host memory otherwise.
  if (cuMemAlloc(&pristine_device_, total) == CUDA_SUCCESS) {
    report_.restore_source = "device";
    for (std::size_t i = 0; i < m_.regions.size(); ++i)
      if (m_.regions[i].before && !fill_word_[i])
        check(cuMemcpyDtoD(pristine_device_ + pristine_offset_[i], device_address(i), m_.regions[i].size), "keeping a pristine copy");
  } else if (cuMemAllocHost(&pristine_host_, total) == CUDA_SUCCESS) {
    report_.restore_source = "host";
    for (std::size_t i = 0; i < m_.regions.size(); ++i)
      if (m_.regions[i].before && !fill_word_[i])
        check(cuMemcpyDtoH(static_cast<char*>(pristine_host_) + pristine_offset_[i], device_address(i), m_.regions[i].size),
              "keeping a pristine copy");
  } else {
    // Neither device nor pinned host memory for a second copy: restores decompress the capture again (slow).
    report_.restore_source = "capture";
    std::fprintf(stderr, "rpl_replay_cuda: note: no memory for pristine copies (%llu bytes); restores re-read the capture\n",
                 (unsigned long long)total);
  }
}

void Replay::restore(const std::vector<bool>& regions) {
  for (std::size_t i = 0; i < m_.regions.size(); ++i) {
    if (!regions[i] || !m_.regions[i].before) continue;
    if (!pristine_device_ && !pristine_host_ && !fill_word_[i]) {
      restore_region_from_capture(i, stream_);
      continue;
    }
    const std::vector<capture::ByteRange> whole = {{0, m_.regions[i].size}};
    const auto& ranges = i < restore_ranges_.size() && !restore_ranges_[i].empty() ? restore_ranges_[i] : whole;
    for (const capture::ByteRange& r : ranges) {
      const CUdeviceptr to = device_address(i) + r.offset;
      CUresult result;
      if (fill_word_[i])  // one repeated word, as the application's memset left it (ranges are page multiples)
        result = cuMemsetD32Async(to, *fill_word_[i], r.size / 4, stream_);
      else if (pristine_device_)
        result = cuMemcpyDtoDAsync(to, pristine_device_ + pristine_offset_[i] + r.offset, r.size, stream_);
      else
        result = cuMemcpyHtoDAsync(to, static_cast<char*>(pristine_host_) + pristine_offset_[i] + r.offset, r.size, stream_);
      check(result, "restoring memory between launches");
    }
  }
}

void Replay::prepare_launch() {
  check(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  for (const auto& p : m_.parameters) parameter_pointers_.push_back(arguments_.data() + p.offset);
  for (const auto& a : m_.launch_attributes) {
    if (!launch_attribute_replayable(int(a.id))) {
      std::fprintf(stderr, "rpl_replay_cuda: launch attribute %s is not replayed\n", a.name.c_str());
      continue;
    }
    CUlaunchAttribute attr{};
    attr.id = CUlaunchAttributeID(a.id);
    auto bytes = from_hex_bytes(a.value_hex);
    std::memcpy(&attr.value, bytes.data(), std::min(bytes.size(), sizeof attr.value));
    attributes_.push_back(attr);
  }
  config_.gridDimX = m_.geometry.grid[0], config_.gridDimY = m_.geometry.grid[1], config_.gridDimZ = m_.geometry.grid[2];
  config_.blockDimX = m_.geometry.block[0], config_.blockDimY = m_.geometry.block[1], config_.blockDimZ = m_.geometry.block[2];
  config_.sharedMemBytes = m_.geometry.dynamic_shared_bytes;
  config_.hStream = stream_;
  config_.attrs = attributes_.empty() ? nullptr : attributes_.data();
  config_.numAttrs = unsigned(attributes_.size());
  check(cuEventCreate(&start_event_, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&stop_event_, CU_EVENT_DEFAULT), "cuEventCreate");
  std::string why_not;
  kernel_timer_ = &process_kernel_timer(o_.knobs.activity_timer, kernel_timer_on_, why_not);
  if (!kernel_timer_on_)
    std::fprintf(stderr, "rpl_replay_cuda: kernel times from CUDA events (they include the launch latency): %s\n", why_not.c_str());
}

double Replay::launch() {
  const unsigned n = ++launches_;
  check(cuEventRecord(start_event_, stream_), "cuEventRecord");
  check(cuLaunchKernelEx(&config_, function_, parameter_pointers_.empty() ? nullptr : parameter_pointers_.data(), nullptr),
        fmt::format("launching {} (launch {})", m_.kernel.mangled_name, n));
  check(cuEventRecord(stop_event_, stream_), "cuEventRecord");
  check(cuEventSynchronize(stop_event_), fmt::format("running {} (launch {}; the kernel faulted?)", m_.kernel.mangled_name, n));
  float ms = 0;
  check(cuEventElapsedTime(&ms, start_event_, stop_event_), "cuEventElapsedTime");
  if (kernel_timer_on_)
    if (int64_t ns = kernel_timer_->take_last_kernel_ns(); ns > 0) return double(ns);
  return double(ms) * 1e6;
}

// Writes a buffer twice the size of L2 (as nvbench and Triton's do_bench flush), so nothing the kernel reads is
// left in it; persisting lines are reset first. On the launch stream, before the start event: not timed.
void Replay::flush_cache() {
  if (!flush_buffer_) {
    int l2 = 0;
    check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_), "cuDeviceGetAttribute(L2 cache size)");
    flush_bytes_ = std::max<std::size_t>(std::size_t(l2) * 2, std::size_t{8} << 20);
    check(cuMemAlloc(&flush_buffer_, flush_bytes_), fmt::format("allocating {} bytes to flush L2 (--cache cold)", flush_bytes_));
  }
  cuCtxResetPersistingL2Cache();
  check(cuMemsetD32Async(flush_buffer_, ++flush_value_, flush_bytes_ / 4, stream_), "flushing L2 (--cache cold)");
}

void Replay::read_back(std::size_t region, uint64_t offset, std::byte* into, std::size_t size) {
  check(cuStreamSynchronize(stream_), "cuStreamSynchronize");
  check(cuMemcpyDtoH(into, device_address(region) + offset, size), "reading back the replayed memory");
}

void Replay::dump() {
  fs::create_directories(o_.dump_dir);
  std::vector<std::byte> buffer(kStagingBytes);
  for (std::size_t i = 0; i < m_.regions.size(); ++i) {
    const Region& g = m_.regions[i];
    write_file_atomically((fs::path(o_.dump_dir) / fmt::format("r{:06d}.bin", g.id)).string(), [&](std::FILE* f) {
      for (uint64_t off = 0; off < g.size; off += kStagingBytes) {
        std::size_t n = std::size_t(std::min<uint64_t>(kStagingBytes, g.size - off));
        check(cuMemcpyDtoH(buffer.data(), device_address(i) + off, n), "reading memory for --dump-dir");
        std::fwrite(buffer.data(), 1, n, f);
      }
    });
  }
}

void Replay::run() {
  dir_ = o_.capture_dir;
  m_ = capture::read_manifest(dir_);
  report_.capture_dir = o_.capture_dir;
  report_.platform = m_.platform;
  report_.kernel = m_.kernel;
  report_.geometry = m_.geometry;
  report_.code_object_path = o_.code_object;
  report_.iterations = o_.iterations;
  report_.recopy = o_.recopy;
  if (m_.platform != "cuda")
    throw Error(ExitCode::InputInvalid, fmt::format("{} is a {} capture; this runner replays CUDA captures", o_.capture_dir, m_.platform));

  check(cuInit(0), "cuInit (is there an NVIDIA GPU and driver?)");
  int count = 0;
  check(cuDeviceGetCount(&count), "cuDeviceGetCount");
  int ordinal = m_.device_ordinal < count ? m_.device_ordinal : 0;
  check(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, device_);
  report_.device_name = name;
  if (report_.device_name != m_.device_name)
    std::fprintf(stderr, "rpl_replay_cuda: warning: captured on %s, replaying on %s\n", m_.device_name.c_str(), name);

  reserve();
  if (o_.mode == capture::ReplayMode::ReserveCheck || !report_.all_exact()) {
    if (report_.all_exact()) return;
    // Whatever took the address belongs to this process (another process has another layout). No
    // placeholders before cuInit here: the driver honours hints only inside the VA pool it sets up at start,
    // and placeholders push that pool elsewhere (seen on H100: every hint then relocated).
    // In a batch the job fails instead (no GPU work done): its caller replays it in a fresh process.
    if (!o_.in_batch) capture::restart_in_fresh_process(kProcessAttempts, "rpl_replay_cuda");
    std::string first;
    for (const auto& r : report_.ranges)
      if (r.status != "exact") {
        first = r.status == "relocated" ? fmt::format("{} ({} bytes) would land at {}", to_hex(r.address), r.size, to_hex(r.got))
                                        : fmt::format("{} ({} bytes): {}", to_hex(r.address), r.size, r.error);
        break;
      }
    throw Error(ExitCode::AddressRelocation,
                fmt::format("{} captured address range(s) cannot be reserved at their original address, e.g. {}; "
                            "the kernel is never run at other addresses",
                            std::count_if(report_.ranges.begin(), report_.ranges.end(), [](auto& r) { return r.status != "exact"; }),
                            first));
  }
  if (!context_) {
    check(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  }
  map_memory();
  replay_address_.assign(m_.regions.size(), 0);
  for (std::size_t i = 0; i < m_.regions.size(); ++i)
    if (capture::reserved_by_replay(m_.regions[i])) replay_address_[i] = m_.regions[i].address;
  load_code_object();
  arguments_ = capture::read_blob(dir_, m_.arguments);
  check(cuMemAllocHost(&staging_, kStagingBytes), "cuMemAllocHost (staging buffer)");
  restore_from_capture();
  if (o_.recopy) keep_pristine_copies();
  else report_.restore_source = "device";
  // The clearing of a kept range (cuMemsetD8) and the pristine copies (cuMemcpyDtoD) run on the legacy stream and
  // return before the device has done them, and the launch stream is non-blocking: without this wait a launch
  // could run first and the pristine copy then hold its result (seen once on an H200 under load: a batch job's
  // dump of an in-place saxpy held two launches' result, as every restore restored the first launch's output).
  check(cuCtxSynchronize(), "waiting for the captured state to be in place");
  prepare_launch();
  if (o_.cache == capture::CacheState::Cold && o_.knobs.cold_evicts_code)
    code_eviction_ready_ = cache_kernel_ready(&CacheKernels::evict_ready);
  capture::run_full_vm(o_, dir_, m_, *this, report_, start_);
  if (!o_.dump_dir.empty()) dump();
  report_.total_wall_ns = since_ns(start_);
  capture::throw_if_mismatch(report_);
}

}  // namespace

void run_cuda_replay(const ReplayOptions& options, capture::ReplayReport& report) {
  Replay replay(options, report);
  replay.run();
}

}  // namespace rpl::cuda_capture
