#pragma once
// Device monitoring over time: a thread of the profiler (never of the application) reads every device's
// power, energy counter, clocks, temperature, memory used and utilisation every interval, stamping each
// reading with CLOCK_BOOTTIME, the clock the traces use (rocprofv3's default, and our CUPTI collector's
// timestamp callback), so samples line up with kernels. The vendor libraries are opened at run time
// (dlopen), so rocm-perf runs on machines without them: NVML on NVIDIA (nvidia/nvml_source.cpp), the ROCm
// SMI library on AMD (amd/rocm_smi_source.cpp; written against its documented C API, unvalidated on
// hardware).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "model/device_metrics.hpp"
#include "platform/platform.hpp"

namespace rpl::collectors {

struct MonitoredDevice {
  int index = 0;
  std::string name;
};

// One value of one metric of one device (metric names: model/device_metrics.hpp).
struct MetricReading {
  int device = 0;
  const char* metric = "";
  double value = 0;
};

// A vendor library opened and initialised: what it can read, device by device.
class DeviceMetricSource {
 public:
  virtual ~DeviceMetricSource() = default;
  virtual std::string name() const = 0;  // "nvml", "rocm-smi"
  virtual std::vector<MonitoredDevice> devices() const = 0;
  // Appends the current value of every metric the device supports; a metric the device does not support
  // is simply absent. Called from the monitor thread only.
  virtual void read(std::vector<MetricReading>& out) = 0;
};

// nullptr with `why` set when the library is missing or finds no device.
std::unique_ptr<DeviceMetricSource> open_nvml_source(std::string& why);      // nvidia/nvml_source.cpp
std::unique_ptr<DeviceMetricSource> open_rocm_smi_source(std::string& why);  // amd/rocm_smi_source.cpp
// The platform's source; throws rpl::Error(ProfilerFailed) naming the library and the reason when none opens.
std::unique_ptr<DeviceMetricSource> open_device_metric_source(platform::Kind kind);

// CLOCK_BOOTTIME in ns.
int64_t boottime_now_ns();

// Samples a source every interval on its own thread between start() and stop().
class DeviceMonitor {
 public:
  DeviceMonitor(std::unique_ptr<DeviceMetricSource> source, std::chrono::milliseconds interval);
  ~DeviceMonitor();
  DeviceMonitor(const DeviceMonitor&) = delete;
  DeviceMonitor& operator=(const DeviceMonitor&) = delete;

  // Takes one sample at once, then one per interval. Clears what an earlier start..stop collected.
  void start();
  // Takes a last sample, joins the thread and returns one series per (device, metric) that had a value.
  std::vector<DeviceMetricSeries> stop();
  const DeviceMetricSource& source() const { return *source_; }

 private:
  void loop();
  void sample_once();

  std::unique_ptr<DeviceMetricSource> source_;
  std::chrono::milliseconds interval_;
  std::vector<MonitoredDevice> devices_;
  std::vector<DeviceMetricSeries> series_;
  std::vector<MetricReading> scratch_;
  std::thread thread_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace rpl::collectors
