#pragma once
// Device metrics sampled over time while the application ran (power, energy, clocks, temperature, memory
// used, utilisation): the profiler's device monitor reads them (NVML on NVIDIA, amd-smi on AMD) on the
// trace's clock, so a sample lines up with the kernels running at that moment.
#include <cstdint>
#include <string>
#include <vector>

namespace rpl {

// One metric of one device as a time series. Metric names and units are fixed (device_metrics.cpp):
// "power" W, "energy" J (a running counter), "sm_clock" MHz, "memory_clock" MHz, "temperature" C,
// "memory_used" bytes, "gpu_utilization" %, "memory_utilization" %.
struct DeviceMetricSeries {
  int device = 0;             // the monitor's device index (NVML index / amd-smi processor order)
  std::string device_name;    // "NVIDIA H100 80GB HBM3"
  std::string metric;         // "power", ...
  std::string unit;           // "W", ...
  std::string source;         // "nvml" or "amd-smi"
  std::vector<int64_t> times;  // ns, CLOCK_BOOTTIME (the trace's clock), ascending
  std::vector<double> values;  // one per time
};

// The unit of a known metric name, empty for an unknown one.
const char* device_metric_unit(const std::string& metric);

}  // namespace rpl
