#include "collectors/nvidia/counter_csv.hpp"

#include <cstdio>

namespace rpl::collectors {
namespace {

constexpr const char* kIdentityColumns[] = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                            "Stream", "Block Size", "Grid Size",    "Device",    "CC"};

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';  // CSV doubles a quote inside a quoted field
    out += c;
  }
  return out + "\"";
}

std::string dims(const std::array<unsigned, 3>& d) {
  return quoted("(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")");
}

}  // namespace

std::string counter_csv_unit(const std::string& metric) {
  if (metric.rfind("gpu__time_duration", 0) == 0) return "nsecond";
  if (metric.find(".pct") != std::string::npos || metric.find("_pct") != std::string::npos) return "%";
  if (metric.find("bytes") != std::string::npos && metric.find("per_second") == std::string::npos) return "byte";
  return "";
}

std::string counter_csv_header(const std::vector<std::string>& metrics) {
  std::string header, units;
  for (const char* c : kIdentityColumns) {
    header += (header.empty() ? "" : ",") + quoted(c);
    units += (units.empty() ? "" : ",") + quoted("");
  }
  for (const auto& m : metrics) {
    header += "," + quoted(m);
    units += "," + quoted(counter_csv_unit(m));
  }
  return header + "\n" + units + "\n";
}

std::string counter_csv_row(std::size_t id, const CounterCsvRow& r) {
  std::string out = quoted(std::to_string(id)) + "," + quoted(std::to_string(r.process_id)) + "," +
                    quoted(r.process_name) + "," + quoted(r.host_name) + "," + quoted(r.kernel) + "," +
                    quoted(std::to_string(r.context_id)) + "," + quoted(std::to_string(r.stream_id)) + "," +
                    dims(r.block) + "," + dims(r.grid) + "," + quoted(std::to_string(r.device)) + "," +
                    quoted(r.compute_capability);
  for (const auto& v : r.values) {
    char buf[40];
    if (v) std::snprintf(buf, sizeof buf, "%.17g", *v);
    out += "," + quoted(v ? buf : "n/a");
  }
  return out + "\n";
}

}  // namespace rpl::collectors
