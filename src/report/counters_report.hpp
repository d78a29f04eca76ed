#pragma once
// `rocm-perf counters list`: the counters of one GPU as a versioned JSON document
// (schemas/counters-list.schema.json) and as a terminal table.
#include <nlohmann/json.hpp>
#include <string>

#include "model/device_counters.hpp"

namespace rpl::report {

nlohmann::json counters_document(const DeviceCounters& d);
std::string counters_table(const DeviceCounters& d);

}  // namespace rpl::report
