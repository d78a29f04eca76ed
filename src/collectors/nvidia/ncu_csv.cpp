// ncu CSV parsing, its import as counter samples, and the ncu command line. See ncu_csv.hpp.
#include "collectors/nvidia/ncu_csv.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <charconv>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "support/checked_math.hpp"
#include "support/csv.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"

namespace rpl::collectors {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The raw line of a record begins with a quote for every table line ncu writes; a record whose first
// field is "==PROF==..." or similar is tool chatter.
bool is_chatter(const std::vector<std::string>& r) {
  return r.size() == 1 || (!r.empty() && r[0].rfind("==", 0) == 0);
}

// An integer field; one that is not a number, or a number outside int64's range (converting it would be
// undefined behaviour; found by fuzzing), gives `fallback` like any unreadable field.
int64_t to_int(const std::string& s, int64_t fallback) {
  auto v = parse_ncu_number(s);
  return v ? checked_double_to<int64_t>(*v).value_or(fallback) : fallback;
}

struct Columns {
  int id = -1, pid = -1, pname = -1, kernel = -1, block = -1, grid = -1, device = -1, cc = -1;
  int metric_name = -1, metric_unit = -1, metric_value = -1;
};
constexpr std::string_view kIdentity[] = {"ID",    "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                          "Stream", "Block Size", "Grid Size",    "Device",    "CC"};

Columns find_columns(const std::vector<std::string>& header) {
  Columns c;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string& h = header[i];
    const int idx = static_cast<int>(i);
    if (h == "ID") c.id = idx;
    else if (h == "Process ID") c.pid = idx;
    else if (h == "Process Name") c.pname = idx;
    else if (h == "Kernel Name") c.kernel = idx;
    else if (h == "Block Size") c.block = idx;
    else if (h == "Grid Size") c.grid = idx;
    else if (h == "Device") c.device = idx;
    else if (h == "CC") c.cc = idx;
    else if (h == "Metric Name") c.metric_name = idx;
    else if (h == "Metric Unit") c.metric_unit = idx;
    else if (h == "Metric Value") c.metric_value = idx;
  }
  return c;
}

bool is_identity_column(const std::string& h) {
  return std::find(std::begin(kIdentity), std::end(kIdentity), h) != std::end(kIdentity) || h == "Section Name";
}

NcuKernel identity(const std::vector<std::string>& r, const Columns& c) {
  NcuKernel k;
  auto get = [&](int i) { return i >= 0 && static_cast<std::size_t>(i) < r.size() ? r[i] : std::string(); };
  k.id = to_int(get(c.id), -1);
  k.process_id = to_int(get(c.pid), 0);
  k.process_name = get(c.pname);
  k.kernel_name = get(c.kernel);
  k.block_size = get(c.block);
  k.grid_size = get(c.grid);
  k.device = get(c.device);
  k.compute_capability = get(c.cc);
  return k;
}

// Applies a unit to a printed value; records a warning once per unknown unit.
double scaled(double v, const std::string& unit, std::string& normalized, std::set<std::string>& unknown_units) {
  auto s = normalize_ncu_unit(unit);
  if (!s) {
    unknown_units.insert(unit);
    normalized = unit;
    return v;
  }
  normalized = s->base;
  return v * s->factor;
}

void finish_unit_warnings(NcuReport& report, const std::set<std::string>& unknown_units, const std::string& source) {
  for (const auto& u : unknown_units)
    report.warnings.push_back(fmt::format("{}: unit '{}' is not known; its values are used as printed", source, u));
}

NcuReport parse_raw(const std::vector<std::vector<std::string>>& records, std::size_t header_at, const Columns& c,
                    const std::string& source) {
  NcuReport report;
  const auto& header = records[header_at];
  std::vector<int> metric_columns;
  for (std::size_t i = 0; i < header.size(); ++i)
    if (!is_identity_column(header[i])) {
      metric_columns.push_back(static_cast<int>(i));
      report.metric_names.push_back(header[i]);
    }
  std::size_t row = header_at + 1;
  std::vector<std::string> units(header.size());
  // The units row: same width, empty ID cell.
  if (row < records.size() && records[row].size() == header.size() && records[row][c.id].empty()) {
    units = records[row];
    ++row;
  }
  std::set<std::string> unknown_units;
  report.metric_units.resize(metric_columns.size());
  std::vector<double> factors(metric_columns.size(), 1.0);
  for (std::size_t m = 0; m < metric_columns.size(); ++m) {
    std::string normalized;
    factors[m] = scaled(1.0, units[metric_columns[m]], normalized, unknown_units);
    report.metric_units[m] = normalized;
  }
  std::size_t malformed = 0;
  for (; row < records.size(); ++row) {
    const auto& r = records[row];
    if (is_chatter(r)) continue;
    if (r.size() != header.size()) {
      ++malformed;
      continue;
    }
    NcuKernel k = identity(r, c);
    if (k.id < 0) {
      ++malformed;
      continue;
    }
    k.values.assign(metric_columns.size(), kNaN);
    for (std::size_t m = 0; m < metric_columns.size(); ++m)
      if (auto v = parse_ncu_number(r[metric_columns[m]])) k.values[m] = *v * factors[m];
    report.kernels.push_back(std::move(k));
  }
  if (malformed)
    report.warnings.push_back(fmt::format("{}: {} line(s) that are not rows of the ncu table were skipped", source, malformed));
  finish_unit_warnings(report, unknown_units, source);
  return report;
}

NcuReport parse_details(const std::vector<std::vector<std::string>>& records, std::size_t header_at, const Columns& c,
                        const std::string& source) {
  NcuReport report;
  const std::size_t width = records[header_at].size();
  std::unordered_map<std::string, int> metric_of;
  std::unordered_map<int64_t, std::size_t> kernel_of_id;
  std::set<std::string> unknown_units;
  std::size_t malformed = 0, conflicting_units = 0;
  for (std::size_t row = header_at + 1; row < records.size(); ++row) {
    const auto& r = records[row];
    if (is_chatter(r)) continue;
    if (r.size() != width) {
      ++malformed;
      continue;
    }
    const int64_t id = to_int(r[c.id], -1);
    if (id < 0) {
      ++malformed;
      continue;
    }
    auto [kit, new_kernel] = kernel_of_id.try_emplace(id, report.kernels.size());
    if (new_kernel) report.kernels.push_back(identity(r, c));
    NcuKernel& k = report.kernels[kit->second];
    const std::string& name = r[c.metric_name];
    auto [mit, new_metric] = metric_of.try_emplace(name, static_cast<int>(report.metric_names.size()));
    std::string normalized;
    std::optional<double> v = parse_ncu_number(r[c.metric_value]);
    const double value = v ? scaled(*v, c.metric_unit >= 0 ? r[c.metric_unit] : "", normalized, unknown_units) : kNaN;
    if (new_metric) {
      report.metric_names.push_back(name);
      report.metric_units.push_back(normalized);
    } else if (v && report.metric_units[mit->second] != normalized) {
      // Auto-scaled units can differ per instance ("Mbyte" here, "Kbyte" there): both normalise to the
      // same base, so a difference after normalisation is a real conflict.
      ++conflicting_units;
    }
    const auto m = static_cast<std::size_t>(mit->second);
    if (k.values.size() <= m) k.values.resize(report.metric_names.size(), kNaN);
    k.values[m] = value;
  }
  for (auto& k : report.kernels) k.values.resize(report.metric_names.size(), kNaN);
  if (malformed)
    report.warnings.push_back(fmt::format("{}: {} line(s) that are not rows of the ncu table were skipped", source, malformed));
  if (conflicting_units)
    report.warnings.push_back(fmt::format("{}: {} value(s) had a unit that differs from the metric's first unit", source,
                                          conflicting_units));
  finish_unit_warnings(report, unknown_units, source);
  return report;
}

bool excluded_by_default(const std::string& metric) {
  static constexpr std::string_view kPrefixes[] = {"device__attribute_", "nvlink__", "numa__", "c2clink__", "profiler__"};
  for (auto p : kPrefixes)
    if (metric.rfind(p, 0) == 0) return true;
  return false;
}

bool to_u64(const std::string& digits, uint64_t& out) {
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

// "(256, 1, 1)" -> {256, 1, 1}; nullopt if malformed.
std::optional<std::array<uint64_t, 3>> parse_dim3(const std::string& s) {
  std::array<uint64_t, 3> out{1, 1, 1};
  std::size_t n = 0;
  std::string digits;
  for (char ch : s) {
    if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
    else if (!digits.empty()) {
      if (n == 3 || !to_u64(digits, out[n++])) return std::nullopt;
      digits.clear();
    }
  }
  if (!digits.empty() && (n == 3 || !to_u64(digits, out[n++]))) return std::nullopt;
  if (n == 0) return std::nullopt;
  return out;
}

}  // namespace

int NcuReport::metric_index(std::string_view name) const {
  for (std::size_t i = 0; i < metric_names.size(); ++i)
    if (metric_names[i] == name) return static_cast<int>(i);
  return -1;
}

std::optional<double> NcuReport::value(const NcuKernel& k, std::string_view metric) const {
  const int i = metric_index(metric);
  if (i < 0 || static_cast<std::size_t>(i) >= k.values.size() || std::isnan(k.values[i])) return std::nullopt;
  return k.values[i];
}

std::optional<double> parse_ncu_number(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text)
    if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) s += c;
  if (s.empty()) return std::nullopt;
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<UnitScale> normalize_ncu_unit(std::string_view unit) {
  static const std::map<std::string, UnitScale, std::less<>> kUnits = {
      {"", {1, ""}},
      {"byte", {1, "byte"}},       {"Kbyte", {1e3, "byte"}},     {"Mbyte", {1e6, "byte"}},
      {"Gbyte", {1e9, "byte"}},    {"Tbyte", {1e12, "byte"}},
      {"ns", {1, "ns"}},           {"nsecond", {1, "ns"}},       {"us", {1e3, "ns"}},
      {"usecond", {1e3, "ns"}},    {"ms", {1e6, "ns"}},          {"msecond", {1e6, "ns"}},
      {"s", {1e9, "ns"}},          {"second", {1e9, "ns"}},
      {"byte/second", {1, "byte/second"}},     {"Kbyte/second", {1e3, "byte/second"}},
      {"Mbyte/second", {1e6, "byte/second"}},  {"Gbyte/second", {1e9, "byte/second"}},
      {"Tbyte/second", {1e12, "byte/second"}}, {"byte/s", {1, "byte/second"}},
      {"Kbyte/s", {1e3, "byte/second"}},       {"Mbyte/s", {1e6, "byte/second"}},
      {"Gbyte/s", {1e9, "byte/second"}},       {"Tbyte/s", {1e12, "byte/second"}},
      {"hz", {1, "hz"}},           {"Khz", {1e3, "hz"}},         {"Mhz", {1e6, "hz"}},
      {"Ghz", {1e9, "hz"}},        {"cycle/nsecond", {1e9, "hz"}}, {"cycle/usecond", {1e6, "hz"}},
      {"%", {1, "%"}},
  };
  if (auto it = kUnits.find(unit); it != kUnits.end()) return it->second;
  // Counts: "inst", "cycle", "warp", "sector", "request", "block", "thread", "pass", "register/thread", ...
  // possibly with a decimal prefix ("Kinst", "Mcycle"). A leading capital that is a prefix is scaled.
  static constexpr std::string_view kCounts[] = {"inst",   "cycle", "warp",   "sector", "request", "block",  "thread",
                                                 "pass",   "SM",    "branches", "cluster", "register/thread",
                                                 "byte/block", "inst/warp", "inst/cycle", "warp/cycle", "sector/request",
                                                 "proportion", "average"};
  for (auto base : kCounts) {
    if (unit == base) return UnitScale{1, std::string(base)};
    if (unit.size() == base.size() + 1 && unit.substr(1) == base) {
      switch (unit[0]) {
        case 'K': return UnitScale{1e3, std::string(base)};
        case 'M': return UnitScale{1e6, std::string(base)};
        case 'G': return UnitScale{1e9, std::string(base)};
        case 'T': return UnitScale{1e12, std::string(base)};
        default: break;
      }
    }
  }
  return std::nullopt;
}

NcuReport parse_ncu_csv(std::string_view text, const std::string& source) {
  const auto records = split_csv(text);
  std::size_t header_at = records.size();
  for (std::size_t i = 0; i < records.size(); ++i)
    if (!records[i].empty() && records[i][0] == "ID" && records[i].size() > 1) {
      header_at = i;
      break;
    }
  if (header_at == records.size())
    throw Error(ExitCode::InputInvalid, source + ": no ncu CSV table (a header row starting with \"ID\") found; "
                                                 "was ncu run with --csv?");
  const Columns c = find_columns(records[header_at]);
  if (c.kernel < 0) throw Error(ExitCode::InputInvalid, source + ": the ncu table has no \"Kernel Name\" column");
  const bool details = c.metric_name >= 0 || c.metric_value >= 0;
  if (details && (c.metric_name < 0 || c.metric_value < 0))
    throw Error(ExitCode::InputInvalid, source + ": the ncu details table needs both \"Metric Name\" and \"Metric Value\"");
  return details ? parse_details(records, header_at, c, source) : parse_raw(records, header_at, c, source);
}

NcuReport read_ncu_csv(const std::string& path) {
  return parse_ncu_csv(read_input_file(path, "ncu CSV file"), path);
}

CounterSamples ncu_counter_samples(const NcuReport& report, const std::vector<std::string>& metrics,
                                   const std::string& tool) {
  CounterSamples samples;
  samples.tool = tool;
  samples.kernel_names = CounterKernelNames::MangledOrDemangled;
  samples.processes = CounterProcesses::ById;
  samples.warnings = report.warnings;
  std::vector<std::size_t> columns;  // report metric index per samples counter
  for (std::size_t m = 0; m < report.metric_names.size(); ++m) {
    const std::string& name = report.metric_names[m];
    const bool wanted = metrics.empty() ? !excluded_by_default(name)
                                        : std::find(metrics.begin(), metrics.end(), name) != metrics.end();
    if (!wanted) continue;
    columns.push_back(m);
    samples.counters.push_back(name);
  }
  for (const auto& wanted : metrics)
    if (report.metric_index(wanted) < 0) samples.warnings.push_back("ncu reported no metric '" + wanted + "'");

  std::vector<const NcuKernel*> in_id_order;
  for (const auto& k : report.kernels) in_id_order.push_back(&k);
  std::stable_sort(in_id_order.begin(), in_id_order.end(), [](const NcuKernel* a, const NcuKernel* b) { return a->id < b->id; });
  for (const NcuKernel* k : in_id_order) {
    CounterInstance& i = samples.instances.emplace_back();
    i.kernel = k->kernel_name;
    i.process = k->process_id;
    auto block = parse_dim3(k->block_size);
    auto grid = parse_dim3(k->grid_size);
    if (block && grid) {
      i.block = *block;
      i.grid = std::array<uint64_t, 3>{(*grid)[0] * (*block)[0], (*grid)[1] * (*block)[1], (*grid)[2] * (*block)[2]};
    }
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (columns[c] < k->values.size() && !std::isnan(k->values[columns[c]])) i.values.emplace_back(c, k->values[columns[c]]);
  }
  return samples;
}

std::vector<std::string> ncu_command_line(const NcuCommandOptions& o) {
  if (o.metrics.empty()) throw Error(ExitCode::Usage, "ncu command: no metrics to collect");
  if (o.application.empty()) throw Error(ExitCode::Usage, "ncu command: no application to profile");
  if (o.clock_control != "none" && o.clock_control != "base")
    throw Error(ExitCode::Usage, "ncu command: --clock-control must be none or base, got '" + o.clock_control + "'");
  if (o.cache_control != "all" && o.cache_control != "none")
    throw Error(ExitCode::Usage, "ncu command: --cache-control must be all or none, got '" + o.cache_control + "'");
  if (o.replay_mode != "kernel" && o.replay_mode != "application")
    throw Error(ExitCode::Usage, "ncu command: --replay-mode must be kernel or application, got '" + o.replay_mode + "'");
  if (o.launch_count && *o.launch_count <= 0)
    throw Error(ExitCode::Usage, "ncu command: --launch-count must be positive");
  std::string metrics;
  for (const auto& m : o.metrics) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> argv = {o.ncu,
                                   "--csv",
                                   "--page",
                                   "raw",
                                   "--print-units",
                                   "base",
                                   "--print-kernel-base",
                                   "mangled",
                                   "--target-processes",
                                   "all",
                                   "--replay-mode",
                                   o.replay_mode,
                                   "--cache-control",
                                   o.cache_control,
                                   "--clock-control",
                                   o.clock_control,
                                   "--metrics",
                                   metrics};
  if (o.kernel_name_base != "function" && o.kernel_name_base != "demangled" && o.kernel_name_base != "mangled")
    throw Error(ExitCode::Usage, "ncu command: --kernel-name-base must be function, demangled or mangled, got '" +
                                     o.kernel_name_base + "'");
  if (!o.kernel_regex.empty()) {
    argv.push_back("--kernel-name-base");
    argv.push_back(o.kernel_name_base);
    argv.push_back("--kernel-name");
    argv.push_back("regex:" + o.kernel_regex);
  }
  if (o.launch_count) {
    argv.push_back("--launch-count");
    argv.push_back(std::to_string(*o.launch_count));
  }
  if (!o.log_file.empty()) {
    argv.push_back("--log-file");
    argv.push_back(o.log_file);
  }
  argv.insert(argv.end(), o.application.begin(), o.application.end());
  return argv;
}

}  // namespace rpl::collectors
