#include "report/counters_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "rpl/version.hpp"

namespace rpl::report {

nlohmann::json counters_document(const DeviceCounters& d) {
  nlohmann::json counters = nlohmann::json::array();
  for (const auto& c : d.counters)
    counters.push_back({{"name", c.name},
                        {"type", c.type.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.type)},
                        {"unit", c.unit.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.unit)},
                        {"description", c.description.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.description)},
                        {"submetrics", c.submetrics}});
  return {{"schema_version", "1.0"},
          {"tool", {{"name", "rocm-perf"}, {"version", kVersion}}},
          {"vendor", d.vendor},
          {"source", d.tool},
          {"device", d.device},
          {"arch", d.arch},
          {"chip", d.chip},
          {"count", d.counters.size()},
          {"counters", counters}};
}

std::string counters_table(const DeviceCounters& d) {
  std::string out = fmt::format("device {}: {}{}, {} {} ({})\n", d.device, d.arch,
                                d.chip.empty() || d.chip == d.arch ? std::string() : " (" + d.chip + ")",
                                d.counters.size(), d.vendor == "nvidia" ? "base metrics" : "counters", d.tool);
  if (d.vendor == "nvidia") {
    out += "  a full metric name is a base metric with one of its submetrics: dram__bytes_read + .sum\n";
    std::size_t w = 20;
    for (const auto& c : d.counters) w = std::max(w, c.name.size());
    w = std::min<std::size_t>(w, 64);
    for (const auto& c : d.counters) {
      std::string subs;
      for (std::size_t i = 0; i < c.submetrics.size() && i < 4; ++i) subs += (i ? " " : "") + c.submetrics[i];
      if (c.submetrics.size() > 4) subs += fmt::format(" (+{})", c.submetrics.size() - 4);
      out += fmt::format("  {:<{}} {:<10} {:<12} {}  [{}]\n", c.name, w, c.type, c.unit, c.description, subs);
    }
  } else {
    for (const auto& c : d.counters) out += fmt::format("  {}\n", c.name);
  }
  return out;
}

}  // namespace rpl::report
