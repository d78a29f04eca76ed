// NVIDIA device metrics from NVML, opened at run time (libnvidia-ml.so.1 ships with the driver, not with
// the toolkit, so nothing links it). The few entry points used are declared here from NVML's API reference
// (the ABI is stable: nvmlDevice_t is an opaque pointer, results are plain integers), so no NVML header
// is needed to build rocm-perf.
#include <dlfcn.h>
#include <fmt/core.h>

#include <cstdlib>

#include "collectors/device_monitor.hpp"

namespace rpl::collectors {
namespace {

using nvmlReturn_t = int;                  // NVML_SUCCESS = 0
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2;  // nvmlClockType_t
constexpr int kNvmlTemperatureGpu = 0;              // nvmlTemperatureSensors_t
struct NvmlMemory {                                 // nvmlMemory_t (v1)
  unsigned long long total, free, used;
};
struct NvmlUtilization {  // nvmlUtilization_t
  unsigned int gpu, memory;
};

struct NvmlApi {
  nvmlReturn_t (*init)() = nullptr;  // nvmlInit_v2
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*count)(unsigned*) = nullptr;                          // nvmlDeviceGetCount_v2
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t*) = nullptr;            // nvmlDeviceGetHandleByIndex_v2
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;        // nvmlDeviceGetName
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;             // nvmlDeviceGetPowerUsage: mW
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*) = nullptr;  // ...GetTotalEnergyConsumption: mJ
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;        // nvmlDeviceGetClockInfo: MHz
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;  // nvmlDeviceGetTemperature: C
  nvmlReturn_t (*memory)(nvmlDevice_t, NvmlMemory*) = nullptr;          // nvmlDeviceGetMemoryInfo: bytes
  nvmlReturn_t (*utilization)(nvmlDevice_t, NvmlUtilization*) = nullptr;  // nvmlDeviceGetUtilizationRates: %
};

template <typename F>
bool resolve_nvml_symbol(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  return out != nullptr;
}

class NvmlSource : public DeviceMetricSource {
 public:
  NvmlSource(void* lib, NvmlApi api, std::vector<nvmlDevice_t> handles, std::vector<MonitoredDevice> devices)
      : lib_(lib), api_(api), handles_(std::move(handles)), devices_(std::move(devices)) {}
  ~NvmlSource() override {
    api_.shutdown();
    dlclose(lib_);
  }
  std::string name() const override { return "nvml"; }
  std::vector<MonitoredDevice> devices() const override { return devices_; }

  void read(std::vector<MetricReading>& out) override {
    for (std::size_t i = 0; i < handles_.size(); ++i) {
      nvmlDevice_t h = handles_[i];
      const int d = devices_[i].index;
      unsigned u = 0;
      unsigned long long ull = 0;
      if (api_.power(h, &u) == kNvmlSuccess) out.push_back({d, "power", u / 1e3});
      if (api_.energy && api_.energy(h, &ull) == kNvmlSuccess) out.push_back({d, "energy", ull / 1e3});
      if (api_.clock(h, kNvmlClockSm, &u) == kNvmlSuccess) out.push_back({d, "sm_clock", double(u)});
      if (api_.clock(h, kNvmlClockMem, &u) == kNvmlSuccess) out.push_back({d, "memory_clock", double(u)});
      if (api_.temperature(h, kNvmlTemperatureGpu, &u) == kNvmlSuccess) out.push_back({d, "temperature", double(u)});
      NvmlMemory m{};
      if (api_.memory(h, &m) == kNvmlSuccess) out.push_back({d, "memory_used", double(m.used)});
      NvmlUtilization util{};
      if (api_.utilization(h, &util) == kNvmlSuccess) {
        out.push_back({d, "gpu_utilization", double(util.gpu)});
        out.push_back({d, "memory_utilization", double(util.memory)});
      }
    }
  }

 private:
  void* lib_;
  NvmlApi api_;
  std::vector<nvmlDevice_t> handles_;
  std::vector<MonitoredDevice> devices_;
};

}  // namespace

std::unique_ptr<DeviceMetricSource> open_nvml_source(std::string& why) {
  // RPL_NVML_LIBRARY: another copy (the tests' stand-in, tests/doubles/fake_nvml.cpp).
  const char* override_path = std::getenv("RPL_NVML_LIBRARY");
  void* lib = dlopen(override_path && *override_path ? override_path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why = fmt::format("NVML (libnvidia-ml.so.1, part of the NVIDIA driver) cannot be loaded: {}", dlerror());
    return nullptr;
  }
  NvmlApi api;
  const bool complete =
      resolve_nvml_symbol(lib, "nvmlInit_v2", api.init) && resolve_nvml_symbol(lib, "nvmlShutdown", api.shutdown) &&
      resolve_nvml_symbol(lib, "nvmlErrorString", api.error_string) && resolve_nvml_symbol(lib, "nvmlDeviceGetCount_v2", api.count) &&
      resolve_nvml_symbol(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle) && resolve_nvml_symbol(lib, "nvmlDeviceGetName", api.name) &&
      resolve_nvml_symbol(lib, "nvmlDeviceGetPowerUsage", api.power) && resolve_nvml_symbol(lib, "nvmlDeviceGetClockInfo", api.clock) &&
      resolve_nvml_symbol(lib, "nvmlDeviceGetTemperature", api.temperature) &&
      resolve_nvml_symbol(lib, "nvmlDeviceGetMemoryInfo", api.memory) &&
      resolve_nvml_symbol(lib, "nvmlDeviceGetUtilizationRates", api.utilization);
  if (!complete) {
    why = "libnvidia-ml.so.1 lacks an entry point rocm-perf needs (a driver older than NVML 11?)";
    dlclose(lib);
    return nullptr;
  }
  resolve_nvml_symbol(lib, "nvmlDeviceGetTotalEnergyConsumption", api.energy);  // Volta and later; optional
  if (nvmlReturn_t rc = api.init(); rc != kNvmlSuccess) {
    why = fmt::format("nvmlInit failed: {}", api.error_string(rc));
    dlclose(lib);
    return nullptr;
  }
  unsigned count = 0;
  api.count(&count);
  std::vector<nvmlDevice_t> handles;
  std::vector<MonitoredDevice> devices;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t h = nullptr;
    if (api.handle(i, &h) != kNvmlSuccess) continue;  // e.g. a device the user may not query
    char name[96] = {};
    api.name(h, name, sizeof name);
    handles.push_back(h);
    devices.push_back({int(i), name});
  }
  if (handles.empty()) {
    why = "NVML finds no device it can query";
    api.shutdown();
    dlclose(lib);
    return nullptr;
  }
  return std::make_unique<NvmlSource>(lib, api, std::move(handles), std::move(devices));
}

}  // namespace rpl::collectors
