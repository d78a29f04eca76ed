#include "model/device_metrics.hpp"

#include <string_view>

namespace rpl {

const char* device_metric_unit(const std::string& metric) {
  static constexpr std::pair<std::string_view, const char*> kUnits[] = {
      {"power", "W"},          {"energy", "J"},      {"sm_clock", "MHz"},        {"memory_clock", "MHz"},
      {"temperature", "C"},    {"memory_used", "B"}, {"gpu_utilization", "%"}, {"memory_utilization", "%"}};
  for (const auto& [name, unit] : kUnits)
    if (name == metric) return unit;
  return "";
}

}  // namespace rpl
