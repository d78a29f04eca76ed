// TEST DOUBLE: a stand-in for the ROCm SMI library (librocm_smi64.so) with the entry points rocm-perf's
// device monitor uses, so the AMD path runs end to end with the rocprofv3 test double. Two devices,
// "Fake MI300X 0" and "Fake MI300X 1": socket power 500 W (and 250 W) in microwatts, an energy counter
// of 15.3 uJ per count advancing with wall time, edge temperature, VRAM used and busy percentages.
// Loaded through RPL_ROCM_SMI_LIBRARY.
#include <stdint.h>
#include <stdio.h>

#include "seconds_since_load.hpp"

namespace {
using rpl::test::seconds_since_load;
double watts(uint32_t dv) { return dv == 0 ? 500.0 : 250.0; }
}  // namespace

extern "C" {
int rsmi_init(uint64_t) {
  seconds_since_load();
  return 0;
}
int rsmi_shut_down() { return 0; }
int rsmi_num_monitor_devices(uint32_t* n) {
  *n = 2;
  return 0;
}
int rsmi_dev_name_get(uint32_t dv, char* name, size_t len) {
  snprintf(name, len, "Fake MI300X %u", dv);
  return 0;
}
int rsmi_dev_current_socket_power_get(uint32_t dv, uint64_t* uw) {
  *uw = static_cast<uint64_t>(watts(dv) * 1e6);
  return 0;
}
int rsmi_dev_energy_count_get(uint32_t dv, uint64_t* count, float* resolution, uint64_t* timestamp) {
  *resolution = 15.3f;
  *count = static_cast<uint64_t>(seconds_since_load() * watts(dv) * 1e6 / 15.3);
  if (timestamp) *timestamp = 0;
  return 0;
}
int rsmi_dev_temp_metric_get(uint32_t, uint32_t sensor, int metric, int64_t* mc) {
  if (sensor != 0 || metric != 0) return 2;  // RSMI_STATUS_NOT_SUPPORTED
  *mc = 52000;
  return 0;
}
int rsmi_dev_memory_usage_get(uint32_t dv, int type, uint64_t* used) {
  if (type != 0) return 2;
  *used = (dv + 1) * (2ull << 30);
  return 0;
}
int rsmi_dev_busy_percent_get(uint32_t, uint32_t* p) {
  *p = 90;
  return 0;
}
}
