#include "app/counters.hpp"

#include "collectors/counter_catalog.hpp"

namespace rpl::app {

DeviceCounters list_counters(const CountersListOptions& options) {
  const platform::Kind kind = options.platform ? *options.platform : platform::detect();
  return collectors::list_device_counters(kind, options.device);
}

}  // namespace rpl::app
