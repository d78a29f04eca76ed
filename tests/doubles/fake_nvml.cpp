// TEST DOUBLE: a stand-in for NVML (libnvidia-ml.so.1) with the entry points rocm-perf's device monitor
// uses, for machines without an NVIDIA driver. One device, "Fake NVML GPU": 150 W constant, an energy
// counter advancing at 150 W of wall time since the library was loaded, fixed clocks, temperature, memory
// used and utilisation. Loaded through RPL_NVML_LIBRARY.
//   FAKE_NVML_SM_CLOCKS        "A,B,...": the SM clock cycles through these values, one per reading (default 1980)
//   FAKE_NVML_GPU_UTILIZATION  the GPU utilisation in percent (default 50)
#include <cstdlib>
#include <string>
#include <vector>

#include "seconds_since_load.hpp"

namespace {
using rpl::test::seconds_since_load;
int g_device_tag = 0;  // the handle handed out: its address
}  // namespace

extern "C" {
struct FakeMemory {
  unsigned long long total, free, used;
};
struct FakeUtilization {
  unsigned int gpu, memory;
};
int nvmlInit_v2() {
  seconds_since_load();
  return 0;
}
int nvmlShutdown() { return 0; }
const char* nvmlErrorString(int) { return "fake NVML error"; }
int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = 1;
  return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index != 0) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = &g_device_tag;
  return 0;
}
int nvmlDeviceGetName(void*, char* name, unsigned length) {
  const char text[] = "Fake NVML GPU";
  for (unsigned i = 0; i < length; ++i) {
    name[i] = i < sizeof text ? text[i] : '\0';
  }
  if (length) name[length - 1] = '\0';
  return 0;
}
int nvmlDeviceGetPowerUsage(void*, unsigned* mw) {
  *mw = 150000;
  return 0;
}
int nvmlDeviceGetTotalEnergyConsumption(void*, unsigned long long* mj) {
  *mj = 1000000ull + static_cast<unsigned long long>(seconds_since_load() * 150000.0);
  return 0;
}
int nvmlDeviceGetClockInfo(void*, int type, unsigned* mhz) {
  static const std::vector<unsigned> sm = [] {
    std::vector<unsigned> v;
    const char* spec = std::getenv("FAKE_NVML_SM_CLOCKS");
    std::string s = spec && *spec ? spec : "1980";
    for (std::size_t at = 0; at <= s.size();) {
      const std::size_t comma = s.find(',', at);
      v.push_back(static_cast<unsigned>(std::stoul(s.substr(at, comma - at))));
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    return v;
  }();
  static std::size_t reading = 0;
  *mhz = type == 1 ? sm[reading++ % sm.size()] : 2619;  // SM, memory
  return 0;
}
int nvmlDeviceGetTemperature(void*, int, unsigned* c) {
  *c = 45;
  return 0;
}
int nvmlDeviceGetMemoryInfo(void*, FakeMemory* m) {
  *m = {80ull << 30, 79ull << 30, 1ull << 30};
  return 0;
}
int nvmlDeviceGetUtilizationRates(void*, FakeUtilization* u) {
  const char* gpu = std::getenv("FAKE_NVML_GPU_UTILIZATION");
  *u = {gpu && *gpu ? static_cast<unsigned>(std::atoi(gpu)) : 50u, 20};
  return 0;
}
}
