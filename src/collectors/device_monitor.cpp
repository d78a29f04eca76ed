#include "collectors/device_monitor.hpp"

#include <fmt/core.h>
#include <time.h>


#include "support/errors.hpp"

namespace rpl::collectors {

int64_t boottime_now_ns() {
  timespec t{};
  clock_gettime(CLOCK_BOOTTIME, &t);
  return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

std::unique_ptr<DeviceMetricSource> open_device_metric_source(platform::Kind kind) {
  std::string why;
  std::unique_ptr<DeviceMetricSource> source =
      kind == platform::Kind::Cuda ? open_nvml_source(why) : open_rocm_smi_source(why);
  if (!source)
    throw Error(ExitCode::ProfilerFailed,
                fmt::format("device monitoring (--monitor-device / --sampling-interval) is not available: {}", why));
  return source;
}

DeviceMonitor::DeviceMonitor(std::unique_ptr<DeviceMetricSource> source, std::chrono::milliseconds interval)
    : source_(std::move(source)), interval_(interval), devices_(source_->devices()) {}

DeviceMonitor::~DeviceMonitor() {
  if (thread_.joinable()) stop();
}

void DeviceMonitor::start() {
  series_.clear();
  stopping_ = false;
  sample_once();
  thread_ = std::thread([this] { loop(); });
}

void DeviceMonitor::loop() {
  std::unique_lock lock(wake_mutex_);
  auto next = std::chrono::steady_clock::now() + interval_;
  while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
    lock.unlock();
    sample_once();
    lock.lock();
    next += interval_;
    // A slow read (a driver call taking longer than the interval) skips ticks instead of bursting.
    if (auto now = std::chrono::steady_clock::now(); next < now) next = now + interval_;
  }
}

void DeviceMonitor::sample_once() {
  scratch_.clear();
  const int64_t before = boottime_now_ns();
  source_->read(scratch_);
  // The middle of the read stands for all its values (the reads of one sample take microseconds).
  const int64_t at = before + (boottime_now_ns() - before) / 2;
  for (const MetricReading& r : scratch_) {
    DeviceMetricSeries* s = nullptr;
    for (auto& existing : series_)
      if (existing.device == r.device && existing.metric == r.metric) s = &existing;
    if (!s) {
      s = &series_.emplace_back();
      s->device = r.device;
      s->metric = r.metric;
      s->unit = device_metric_unit(s->metric);
      s->source = source_->name();
      for (const auto& d : devices_)
        if (d.index == r.device) s->device_name = d.name;
    }
    s->times.push_back(at);
    s->values.push_back(r.value);
  }
}

std::vector<DeviceMetricSeries> DeviceMonitor::stop() {
  if (thread_.joinable()) {
    {
      std::lock_guard lock(wake_mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    sample_once();
  }
  return std::move(series_);
}

}  // namespace rpl::collectors
