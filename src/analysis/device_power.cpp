#include "analysis/device_power.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace rpl::analysis {

double integrate_over_time(const std::vector<int64_t>& times, const std::vector<double>& values) {
  double sum = 0;
  for (std::size_t i = 1; i < times.size() && i < values.size(); ++i)
    sum += (values[i] + values[i - 1]) / 2 * double(times[i] - times[i - 1]) * 1e-9;
  return sum;
}

double time_weighted_mean(const std::vector<int64_t>& times, const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double span_s = times.size() >= 2 ? double(times.back() - times.front()) * 1e-9 : 0;
  if (span_s <= 0) return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
  return integrate_over_time(times, values) / span_s;
}

namespace {

const DeviceMetricSeries* find(const std::vector<const DeviceMetricSeries*>& of_device, const char* metric) {
  for (const auto* s : of_device)
    if (s->metric == metric && !s->values.empty()) return s;
  return nullptr;
}

double peak(const DeviceMetricSeries& s) { return *std::max_element(s.values.begin(), s.values.end()); }

}  // namespace

std::vector<DeviceMetricSummary> summarize_device_metrics(const std::vector<DeviceMetricSeries>& series) {
  std::map<int, std::vector<const DeviceMetricSeries*>> by_device;
  for (const auto& s : series) by_device[s.device].push_back(&s);

  std::vector<DeviceMetricSummary> out;
  for (const auto& [device, of_device] : by_device) {
    DeviceMetricSummary& d = out.emplace_back();
    d.device = device;
    d.device_name = of_device.front()->device_name;
    d.source = of_device.front()->source;
    for (const auto* s : of_device) {
      d.samples = std::max(d.samples, s->values.size());
      if (s->times.size() >= 2) d.monitored_s = std::max(d.monitored_s, double(s->times.back() - s->times.front()) * 1e-9);
    }
    const DeviceMetricSeries* power = find(of_device, "power");
    if (power) {
      d.mean_power_w = time_weighted_mean(power->times, power->values);
      d.peak_power_w = peak(*power);
    }
    const DeviceMetricSeries* energy = find(of_device, "energy");
    if (energy && energy->values.size() >= 2 && energy->values.back() > energy->values.front() &&
        std::is_sorted(energy->values.begin(), energy->values.end())) {
      d.energy_j = energy->values.back() - energy->values.front();
      d.energy_method = "counter";
    } else if (power && power->values.size() >= 2) {
      d.energy_j = integrate_over_time(power->times, power->values);
      d.energy_method = "integrated";
    }
    if (const auto* m = find(of_device, "memory_used")) d.peak_memory_used_bytes = peak(*m);
    if (const auto* c = find(of_device, "sm_clock")) {
      d.mean_sm_clock_mhz = time_weighted_mean(c->times, c->values);
      d.min_sm_clock_mhz = *std::min_element(c->values.begin(), c->values.end());
      d.max_sm_clock_mhz = peak(*c);
    }
    if (const auto* c = find(of_device, "memory_clock")) d.mean_memory_clock_mhz = time_weighted_mean(c->times, c->values);
    if (const auto* t = find(of_device, "temperature")) d.peak_temperature_c = peak(*t);
    if (const auto* u = find(of_device, "gpu_utilization")) d.mean_gpu_utilization_pct = time_weighted_mean(u->times, u->values);
  }
  return out;
}

}  // namespace rpl::analysis
