// AMD device metrics from the ROCm SMI library (librocm_smi64.so, shipped with ROCm), opened at run time.
// UNVALIDATED ON HARDWARE: written against the library's documented C API (rocm_smi.h) with no AMD GPU at
// hand. Only entry points taking scalars are used, so no structure layout (which changed between ROCm
// releases, e.g. rsmi_frequencies_t) is assumed; clocks are therefore not sampled on AMD.
#include <dlfcn.h>
#include <fmt/core.h>

#include <cstdlib>

#include <cstdint>

#include "collectors/device_monitor.hpp"

namespace rpl::collectors {
namespace {

using rsmi_status_t = int;  // RSMI_STATUS_SUCCESS = 0
constexpr rsmi_status_t kRsmiSuccess = 0;
constexpr uint32_t kTempTypeEdge = 0, kTempTypeJunction = 1;  // rsmi_temperature_type_t
constexpr int kTempCurrent = 0;                               // rsmi_temperature_metric_t
constexpr int kMemTypeVram = 0;                               // rsmi_memory_type_t

struct RsmiApi {
  rsmi_status_t (*init)(uint64_t) = nullptr;
  rsmi_status_t (*shut_down)() = nullptr;
  rsmi_status_t (*count)(uint32_t*) = nullptr;                            // rsmi_num_monitor_devices
  rsmi_status_t (*name)(uint32_t, char*, size_t) = nullptr;               // rsmi_dev_name_get
  rsmi_status_t (*socket_power)(uint32_t, uint64_t*) = nullptr;           // rsmi_dev_current_socket_power_get: uW
  rsmi_status_t (*average_power)(uint32_t, uint32_t, uint64_t*) = nullptr;  // rsmi_dev_power_ave_get: uW
  rsmi_status_t (*energy)(uint32_t, uint64_t*, float*, uint64_t*) = nullptr;  // rsmi_dev_energy_count_get
  rsmi_status_t (*temperature)(uint32_t, uint32_t, int, int64_t*) = nullptr;  // rsmi_dev_temp_metric_get: mC
  rsmi_status_t (*memory_used)(uint32_t, int, uint64_t*) = nullptr;           // rsmi_dev_memory_usage_get: B
  rsmi_status_t (*busy)(uint32_t, uint32_t*) = nullptr;                       // rsmi_dev_busy_percent_get
  rsmi_status_t (*memory_busy)(uint32_t, uint32_t*) = nullptr;                // rsmi_dev_memory_busy_percent_get
};

template <typename F>
void resolve_smi_symbol(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
}

class RocmSmiSource : public DeviceMetricSource {
 public:
  RocmSmiSource(void* lib, RsmiApi api, std::vector<MonitoredDevice> devices)
      : lib_(lib), api_(api), devices_(std::move(devices)) {}
  ~RocmSmiSource() override {
    api_.shut_down();
    dlclose(lib_);
  }
  std::string name() const override { return "rocm-smi"; }
  std::vector<MonitoredDevice> devices() const override { return devices_; }

  void read(std::vector<MetricReading>& out) override {
    for (const MonitoredDevice& dev : devices_) {
      const auto i = static_cast<uint32_t>(dev.index);
      uint64_t u64 = 0;
      uint32_t u32 = 0;
      int64_t i64 = 0;
      float resolution = 0;
      uint64_t energy_timestamp = 0;  // not used, but the library may refuse a null pointer
      if (api_.socket_power && api_.socket_power(i, &u64) == kRsmiSuccess)  // MI300 and later
        out.push_back({dev.index, "power", u64 / 1e6});
      else if (api_.average_power && api_.average_power(i, 0, &u64) == kRsmiSuccess)
        out.push_back({dev.index, "power", u64 / 1e6});
      if (api_.energy && api_.energy(i, &u64, &resolution, &energy_timestamp) == kRsmiSuccess)
        out.push_back({dev.index, "energy", double(u64) * resolution / 1e6});  // counter x uJ per count
      if (api_.temperature && (api_.temperature(i, kTempTypeEdge, kTempCurrent, &i64) == kRsmiSuccess ||
                               api_.temperature(i, kTempTypeJunction, kTempCurrent, &i64) == kRsmiSuccess))
        out.push_back({dev.index, "temperature", i64 / 1e3});
      if (api_.memory_used && api_.memory_used(i, kMemTypeVram, &u64) == kRsmiSuccess)
        out.push_back({dev.index, "memory_used", double(u64)});
      if (api_.busy && api_.busy(i, &u32) == kRsmiSuccess) out.push_back({dev.index, "gpu_utilization", double(u32)});
      if (api_.memory_busy && api_.memory_busy(i, &u32) == kRsmiSuccess)
        out.push_back({dev.index, "memory_utilization", double(u32)});
    }
  }

 private:
  void* lib_;
  RsmiApi api_;
  std::vector<MonitoredDevice> devices_;
};

}  // namespace

std::unique_ptr<DeviceMetricSource> open_rocm_smi_source(std::string& why) {
  // RPL_ROCM_SMI_LIBRARY: another copy (the tests' stand-in, tests/doubles/fake_rocm_smi.cpp).
  const char* override_path = std::getenv("RPL_ROCM_SMI_LIBRARY");
  void* lib = override_path && *override_path ? dlopen(override_path, RTLD_NOW | RTLD_LOCAL)
                                              : dlopen("librocm_smi64.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib && !(override_path && *override_path)) lib = dlopen("librocm_smi64.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why = fmt::format("the ROCm SMI library (librocm_smi64.so, part of ROCm) cannot be loaded: {}", dlerror());
    return nullptr;
  }
  RsmiApi api;
  resolve_smi_symbol(lib, "rsmi_init", api.init);
  resolve_smi_symbol(lib, "rsmi_shut_down", api.shut_down);
  resolve_smi_symbol(lib, "rsmi_num_monitor_devices", api.count);
  resolve_smi_symbol(lib, "rsmi_dev_name_get", api.name);
  resolve_smi_symbol(lib, "rsmi_dev_current_socket_power_get", api.socket_power);
  resolve_smi_symbol(lib, "rsmi_dev_power_ave_get", api.average_power);
  resolve_smi_symbol(lib, "rsmi_dev_energy_count_get", api.energy);
  resolve_smi_symbol(lib, "rsmi_dev_temp_metric_get", api.temperature);
  resolve_smi_symbol(lib, "rsmi_dev_memory_usage_get", api.memory_used);
  resolve_smi_symbol(lib, "rsmi_dev_busy_percent_get", api.busy);
  resolve_smi_symbol(lib, "rsmi_dev_memory_busy_percent_get", api.memory_busy);
  if (!api.init || !api.shut_down || !api.count || !api.name) {
    why = "librocm_smi64.so lacks rsmi_init, rsmi_num_monitor_devices or rsmi_dev_name_get";
    dlclose(lib);
    return nullptr;
  }
  if (rsmi_status_t rc = api.init(0); rc != kRsmiSuccess) {
    why = fmt::format("rsmi_init failed (status {})", rc);
    dlclose(lib);
    return nullptr;
  }
  uint32_t count = 0;
  api.count(&count);
  std::vector<MonitoredDevice> devices;
  for (uint32_t i = 0; i < count; ++i) {
    char name[128] = {};
    if (api.name(i, name, sizeof name) != kRsmiSuccess) name[0] = '\0';
    devices.push_back({int(i), name});
  }
  if (devices.empty()) {
    why = "the ROCm SMI library finds no device";
    api.shut_down();
    dlclose(lib);
    return nullptr;
  }
  return std::make_unique<RocmSmiSource>(lib, api, std::move(devices));
}

}  // namespace rpl::collectors
