#pragma once
// A run's device metrics summarised per device: energy in joules, mean and peak power, peak memory used,
// clocks, temperature and utilisation over the monitored interval.
#include <optional>
#include <string>
#include <vector>

#include "model/device_metrics.hpp"

namespace rpl::analysis {

struct DeviceMetricSummary {
  int device = 0;
  std::string device_name;
  std::string source;           // "nvml", "rocm-smi"
  std::size_t samples = 0;      // samples of the best-covered metric
  double monitored_s = 0;       // first to last sample
  std::optional<double> energy_j;
  std::string energy_method;    // "counter": the device's energy counter; "integrated": power over time
  std::optional<double> mean_power_w, peak_power_w;
  std::optional<double> peak_memory_used_bytes;
  std::optional<double> mean_sm_clock_mhz, min_sm_clock_mhz, max_sm_clock_mhz, mean_memory_clock_mhz;
  std::optional<double> peak_temperature_c, mean_gpu_utilization_pct;
};

// Time-weighted mean (trapezoid over the sample times; the plain mean of one sample).
double time_weighted_mean(const std::vector<int64_t>& times, const std::vector<double>& values);
// Integral of values over time in value x seconds (trapezoid rule).
double integrate_over_time(const std::vector<int64_t>& times, const std::vector<double>& values);

// One summary per device, ascending device index. Energy comes from the device's energy counter (last
// minus first) where it advanced, else from integrating power; a counter that went backwards (a driver
// reload) falls back to the integral too.
std::vector<DeviceMetricSummary> summarize_device_metrics(const std::vector<DeviceMetricSeries>& series);

}  // namespace rpl::analysis
