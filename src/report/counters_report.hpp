#pragma once
// `rocm-perf counters list`: the counters of one GPU as a versioned JSON document
// (schemas/counters-list.schema.json) and as a terminal table.
#include <nlohmann/json.hpp>
#include <string>

#include "collectors/counter_catalog.hpp"

namespace rpl::report {

nlohmann::json counters_document(const collectors::DeviceCounters& d);
std::string counters_table(const collectors::DeviceCounters& d);

}  // namespace rpl::report
