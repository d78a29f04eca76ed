#include "report/ceilings_report.hpp"

#include <fmt/core.h>

#include "analysis/device_specs.hpp"

namespace rpl::report {

std::string ceilings_table(const app::CeilingsResult& r) {
  std::string out = fmt::format("{} ({}, {} SMs), device {}\n", r.ceilings.product_name, r.ceilings.arch, r.sms,
                                r.device_index);
  out += fmt::format("{:<12} {:>12} {:>12} {:>8} {:>10}\n", "ceiling", "measured", "table", "ratio", "best ms");
  for (const auto& m : r.measurements) {
    const bool bandwidth = analysis::parse_mem_level(m.key).has_value();
    out += fmt::format("{:<12} {:>12} {:>12} {:>8} {:>10.3f}\n", m.key,
                       fmt::format("{:.0f} {}", m.value, bandwidth ? "GB/s" : "GF/s"),
                       m.table_value ? fmt::format("{:.0f}", *m.table_value) : "-",
                       m.table_value ? fmt::format("{:.1f}%", 100 * m.value / *m.table_value) : "-", m.best_ms);
  }
  return out;
}

}  // namespace rpl::report
