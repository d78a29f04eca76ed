#pragma once
// The `counters list` application: the hardware counters the GPU present supports.
#include <optional>

#include "model/device_counters.hpp"
#include "platform/platform.hpp"

namespace rpl::app {

struct CountersListOptions {
  std::optional<platform::Kind> platform;  // empty: the platform this machine has (platform::detect)
  int device = 0;                          // the logical device index
};

// Throws as collectors::list_device_counters: rpl::Error(ProfilerFailed) naming the vendor tool when it is
// missing or fails, (Usage) when the device does not exist.
DeviceCounters list_counters(const CountersListOptions& options);

}  // namespace rpl::app
