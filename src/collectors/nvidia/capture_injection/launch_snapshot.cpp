#include "collectors/nvidia/capture_injection/launch_snapshot.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

#include "collectors/nvidia/capture_injection/load_tracking.hpp"
#include "collectors/nvidia/cuda_driver/cu_error.hpp"
#include "collectors/nvidia/cuda_driver/cuda_attributes.hpp"
#include "support/demangle.hpp"
#include "rpl/version.hpp"

namespace rpl::cuda_capture {
namespace {

constexpr std::size_t kStagingBytes = std::size_t{32} << 20;

void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(fmt::format("{} failed: {}", what, cu_error(r)));
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string bytes_hex(const void* data, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += fmt::format("{:02x}", static_cast<const unsigned char*>(data)[i]);
  return s;
}

}  // namespace

LaunchSnapshot::~LaunchSnapshot() {
  if (!staging_) return;
  if (staging_pinned_) cuMemFreeHost(staging_);
  else std::free(staging_);
}

void LaunchSnapshot::record_arguments(const LaunchInfo& launch) {
  // Offsets and sizes as the driver reports them; the buffer is rebuilt exactly as the kernel receives it.
  std::size_t end = 0;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    if (cuFuncGetParamInfo(launch.function, i, &offset, &size) != CUDA_SUCCESS) break;
    manifest_.parameters.push_back({offset, size});
    end = std::max(end, offset + size);
  }
  arguments_.assign(end, std::byte{0});
  if (launch.kernel_params) {
    for (std::size_t i = 0; i < manifest_.parameters.size(); ++i) {
      const auto& p = manifest_.parameters[i];
      if (!launch.kernel_params[i]) throw std::runtime_error(fmt::format("kernel parameter {} is a null pointer", i));
      std::memcpy(arguments_.data() + p.offset, launch.kernel_params[i], p.size);
    }
    return;
  }
  if (launch.extra) {
    const void* buffer = nullptr;
    std::size_t size = 0;
    for (void** e = launch.extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = e[1];
      else if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *static_cast<const std::size_t*>(e[1]);
    }
    if (!buffer) throw std::runtime_error("the launch passes its arguments in `extra` without a buffer pointer");
    arguments_.assign(static_cast<const std::byte*>(buffer), static_cast<const std::byte*>(buffer) + size);
    if (manifest_.parameters.empty() && size) manifest_.parameters.push_back({0, size});
    return;
  }
  if (end != 0) throw std::runtime_error("the kernel takes parameters but the launch passed none");
}

void LaunchSnapshot::collect_regions(CUmodule module, const KeptModule& kept) {
  std::vector<capture::LiveRange> ranges = live_.snapshot();
  // The kernel's module's variables (__device__, __constant__), placed by the module loader, found by name.
  std::vector<capture::LiveRange> globals;
  std::vector<std::string> symbols;
  for (const auto& s : kept.symbols) {
    if (!s.is_object() || s.size == 0) continue;
    CUdeviceptr ptr = 0;
    std::size_t bytes = 0;
    if (cuModuleGetGlobal(&ptr, &bytes, module, s.name.c_str()) != CUDA_SUCCESS || bytes == 0) continue;
    globals.push_back({uint64_t(ptr), uint64_t(bytes), "global"});
    symbols.push_back(s.name);
  }
  struct Entry {
    capture::LiveRange range;
    std::string symbol;
  };
  std::vector<Entry> all;
  for (auto& r : ranges) all.push_back({r, ""});
  for (std::size_t i = 0; i < globals.size(); ++i) all.push_back({globals[i], symbols[i]});
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.range.address < b.range.address; });
  uint64_t next_id = 0, end = 0;
  for (const Entry& e : all) {
    if (e.range.address < end) {  // an alias of a variable already taken, or a global inside an allocation
      skipped_.push_back({{"address", capture::to_hex(e.range.address)}, {"size", e.range.size},
                          {"kind", e.range.kind}, {"symbol", e.symbol}, {"why", "overlaps another region"}});
      continue;
    }
    capture::Region r;
    r.id = next_id++;
    r.address = e.range.address;
    r.size = e.range.size;
    r.kind = e.range.kind;
    r.symbol = e.symbol;
    manifest_.regions.push_back(std::move(r));
    end = e.range.address + e.range.size;
  }
}

void LaunchSnapshot::snapshot_regions(bool after) {
  if (!staging_) {
    staging_pinned_ = cuMemAllocHost(&staging_, kStagingBytes) == CUDA_SUCCESS;
    if (!staging_pinned_ && !(staging_ = std::malloc(kStagingBytes))) throw std::bad_alloc();
  }
  std::filesystem::path dir(config_.dir);
  std::vector<capture::Region> kept;
  for (capture::Region& r : manifest_.regions) {
    capture::BlobWriter writer(dir, capture::region_blob_file(r.id, after));
    CUresult failed = CUDA_SUCCESS;
    for (uint64_t off = 0; off < r.size && failed == CUDA_SUCCESS; off += kStagingBytes) {
      std::size_t n = std::size_t(std::min<uint64_t>(kStagingBytes, r.size - off));
      failed = cuMemcpyDtoH(staging_, CUdeviceptr(r.address + off), n);
      if (failed == CUDA_SUCCESS) writer.write(staging_, n);
    }
    if (failed != CUDA_SUCCESS) {
      // Memory the driver will not copy (a VMM mapping without access rights): left out, and said so.
      if (after) throw std::runtime_error(fmt::format("region {} at {} could be read before the launch but not after: {}",
                                                      r.id, capture::to_hex(r.address), cu_error(failed)));
      skipped_.push_back({{"address", capture::to_hex(r.address)}, {"size", r.size}, {"kind", r.kind},
                          {"why", "cannot be copied: " + cu_error(failed)}});
      continue;
    }
    (after ? r.after : r.before) = writer.finish();
    kept.push_back(std::move(r));
  }
  manifest_.regions = std::move(kept);
}

void LaunchSnapshot::before(const LaunchInfo& launch) {
  std::filesystem::create_directories(config_.dir);
  check(cuCtxSynchronize(), "synchronising the context before the capture (an earlier kernel failed?)");

  CUmodule module = nullptr;
  check(cuFuncGetModule(&module, launch.function), "cuFuncGetModule");
  std::string why;
  kept_ = modules_.find(launch.mangled_name, module, &why);
  if (!kept_) {
    cuFuncLoad(launch.function);  // lazy loading: loads the module now, which reports its cubin
    kept_ = modules_.find(launch.mangled_name, module, &why);
  }
  if (!kept_) {
    // The module-loaded callback gave no cubin defining the kernel: open the image its loading call received.
    std::string image_note;
    if (modules_.arch() == 0) modules_.set_arch(current_compute_capability(false));  // to pick a fat binary's member
    if (const collectors::nvidia::CodeLoad* load = loads_.load_of_module(module)) {
      auto bytes = load_image_bytes(*load, &image_note);
      if (!bytes.empty()) kept_ = modules_.add_from_image(launch.mangled_name, bytes, &image_note);
      // PTX (directly, or a fat binary without a cubin for this device): JIT-compile it as the driver did.
      std::string ptx_note;
      if (!kept_ && !bytes.empty()) ptx_ = collectors::nvidia::ptx_of_image(bytes, modules_.arch(), &ptx_note);
      if (!kept_ && !ptx_.empty()) {
        auto cubin = jit_ptx_to_cubin(ptx_, &ptx_note);
        if (!cubin.empty()) kept_ = modules_.add_from_image(launch.mangled_name, cubin, &ptx_note);
        if (kept_) code_note_ = "JIT-compiled here from its module's PTX with the driver's linker (default options)";
      }
      if (!kept_ && !ptx_note.empty()) image_note += (image_note.empty() ? "" : "; ") + ptx_note;
    }
    if (!kept_) {
      CUmoduleLoadingMode mode{};
      bool lazy = cuModuleGetLoadingMode(&mode) == CUDA_SUCCESS && mode == CU_MODULE_LAZY_LOADING;
      throw std::runtime_error(fmt::format(
          "the cubin holding {} could not be had: {}; no cubin the module-loaded callback delivered defines it ({} "
          "modules seen, {} of them neither cubin nor fat binary; {} module loading){}",
          launch.mangled_name, loads_.describe_module(module), modules_.seen(), modules_.unreadable(),
          lazy ? "lazy" : "eager", image_note.empty() ? "" : "; " + image_note));
    }
  }
  if (!why.empty() && config_.verbose) std::fprintf(stderr, "rpl-capture: %s\n", why.c_str());

  record_arguments(launch);
  for (const auto& fa : settable_function_attributes()) {
    int value = 0;
    if (cuFuncGetAttribute(&value, fa.id, launch.function) == CUDA_SUCCESS)
      manifest_.function_attributes.push_back({int64_t(fa.id), fa.name, "", value});
  }
  for (unsigned i = 0; i < launch.attribute_count; ++i) {
    const CUlaunchAttribute& a = launch.attributes[i];
    manifest_.launch_attributes.push_back(
        {int64_t(a.id), launch_attribute_name(int(a.id)), bytes_hex(&a.value, sizeof a.value), 0});
  }
  if (launch.cooperative) {
    CUlaunchAttributeValue v{};
    v.cooperative = 1;
    manifest_.launch_attributes.push_back(
        {CU_LAUNCH_ATTRIBUTE_COOPERATIVE, launch_attribute_name(CU_LAUNCH_ATTRIBUTE_COOPERATIVE), bytes_hex(&v, sizeof v), 0});
  }
  manifest_.geometry = {launch.grid, launch.block, launch.shared_bytes};
  manifest_.kernel = {launch.mangled_name, demangle(launch.mangled_name), config_.kernel_regex, config_.dispatch};
  manifest_.vendor["launch_api"] = launch.api;
  manifest_.vendor["module_id"] = kept_->module_id;
  manifest_.vendor["code_object_origin"] = code_note_.empty() ? kept_->origin : code_note_;
  manifest_.vendor["module_loaded_by"] = loads_.describe_module(module);
  if (!why.empty()) manifest_.vendor["code_object_note"] = why;

  collect_regions(module, *kept_);
  snapshot_regions(false);
}

void LaunchSnapshot::after(CUresult launch_result) {
  if (launch_result != CUDA_SUCCESS)
    throw std::runtime_error("the captured launch itself failed: " + cu_error(launch_result));
  check(cuCtxSynchronize(), "synchronising after the captured kernel (it faulted?)");
  snapshot_regions(true);

  std::filesystem::path dir(config_.dir);
  manifest_.code_object = capture::write_blob(dir, "code/kernel.cubin.zst", kept_->cubin);
  manifest_.code_object_format = "cubin";
  manifest_.arguments = capture::write_blob(dir, "arguments.bin.zst", arguments_);
  if (!ptx_.empty()) {  // the PTX the cubin was compiled from, kept beside it
    auto ptx = capture::write_blob(dir, "code/source.ptx.zst", ptx_);
    manifest_.vendor["ptx"] = {{"file", ptx.file}, {"size", ptx.size}};
  }

  CUdevice device = 0;
  check(cuCtxGetDevice(&device), "cuCtxGetDevice");
  char name[256] = {};
  cuDeviceGetName(name, sizeof name, device);
  int major = 0, minor = 0, driver = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  cuDriverGetVersion(&driver);
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  std::size_t granularity = 0;
  cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);

  manifest_.platform = "cuda";
  manifest_.producer = fmt::format("rocm-perf {} cuda-capture (CUPTI)", kVersion);
  manifest_.created_utc = utc_now();
  manifest_.device_name = name;
  manifest_.device_arch = fmt::format("sm_{}{}", major, minor);
  manifest_.device_ordinal = int(device);
  manifest_.command = config_.command;
  manifest_.pid = getpid();
  manifest_.vendor["driver_version"] = driver;
  manifest_.vendor["granularity"] = granularity;
  manifest_.vendor["skipped_regions"] = skipped_;
  capture::write_manifest(dir, manifest_);
}

}  // namespace rpl::cuda_capture
