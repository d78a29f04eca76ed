// ncu CSV parsing, attachment to a Trace, and the ncu command line. See ncu_csv.hpp.
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

int64_t to_int(const std::string& s, int64_t fallback) {
  auto v = parse_ncu_number(s);
  return v ? static_cast<int64_t>(*v) : fallback;
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

std::string kernel_base_name(std::string_view name) {
  // Parameter list: the last top-level '(' ... ')' at the end.
  std::string_view s = name;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      else if (s[i] == '(' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  // Return type: everything up to the last space outside template brackets and parentheses
  // ("void (anonymous namespace)::k" keeps "(anonymous namespace)::k").
  int depth = 0;
  std::size_t cut = std::string_view::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    else if (s[i] == '>' || s[i] == ')') --depth;
    else if (s[i] == ' ' && depth == 0 && i + 1 < s.size() && s[i + 1] != '>') cut = i;
  }
  if (cut != std::string_view::npos) s = s.substr(cut + 1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

namespace {

// attach_ncu_metrics's steps. Each profiled instance is paired with the trace's dispatch of the same kernel
// (mangled name, then display name, then base name) and the same occurrence in launch order, per process
// when every profiled process is in the trace.
class NcuMatcher {
 public:
  NcuMatcher(Trace& trace, const NcuReport& report, const NcuAttachOptions& options)
      : trace_(trace), report_(report), options_(options) {}

  NcuAttachResult attach() {
    index_trace_kernels();
    decide_per_process();
    group_dispatches();
    select_metrics();
    for (const auto& c : trace_.counters) existing_.insert(sample_key(c.dispatch, c.counter));
    for (const NcuKernel* k : instances_in_id_order()) match_instance(*k);
    warn_about_counts();
    return std::move(result_);
  }

 private:
  static uint64_t group_key(Index name, Index process) { return (static_cast<uint64_t>(name) << 32) | process; }
  static uint64_t sample_key(Index dispatch, Index counter) { return (static_cast<uint64_t>(dispatch) << 32) | counter; }

  // The trace's kernel names (display-name string ids) by mangled, display and base name.
  void index_trace_kernels() {
    for (const KernelSymbol& s : trace_.symbols) {
      const std::string& display = trace_.strings.at(s.display_name);
      by_mangled_.try_emplace(trace_.strings.at(s.mangled_name), s.display_name);
      by_display_.try_emplace(display, s.display_name);
      auto& v = by_base_[kernel_base_name(display)];
      if (std::find(v.begin(), v.end(), s.display_name) == v.end()) v.push_back(s.display_name);
    }
  }

  // Per process when every profiled process id is in the trace; else across all processes (said once).
  void decide_per_process() {
    std::set<int64_t> ncu_pids;
    for (const auto& k : report_.kernels) ncu_pids.insert(k.process_id);
    for (Index p = 0; p < trace_.processes.size(); ++p) process_of_pid_.try_emplace(trace_.processes[p].pid, p);
    per_process_ =
        std::all_of(ncu_pids.begin(), ncu_pids.end(), [&](int64_t pid) { return process_of_pid_.count(pid) > 0; });
    if (!per_process_ && ncu_pids.size() > 1)
      result_.warnings.push_back(fmt::format("{} profiled {} processes whose ids are not in the trace: dispatches are "
                                             "matched by launch order across all processes",
                                             options_.tool, ncu_pids.size()));
  }

  // Dispatch lists per (display name, process or all), in launch order.
  void group_dispatches() {
    for (Index d = 0; d < trace_.dispatches.size(); ++d) {
      const Dispatch& disp = trace_.dispatches[d];
      if (disp.symbol >= trace_.symbols.size()) continue;
      const Index process = per_process_ ? disp.process : kNoIndex;
      dispatches_of_[group_key(trace_.symbols[disp.symbol].display_name, process)].push_back(d);
    }
    for (auto& [key, list] : dispatches_of_)
      std::stable_sort(list.begin(), list.end(), [&](Index a, Index b) {
        const Dispatch &x = trace_.dispatches[a], &y = trace_.dispatches[b];
        if (x.start != y.start) return x.start < y.start;
        return x.dispatch_id < y.dispatch_id;
      });
  }

  // Which metrics, as trace string ids.
  void select_metrics() {
    for (std::size_t m = 0; m < report_.metric_names.size(); ++m) {
      const std::string& name = report_.metric_names[m];
      const bool wanted = options_.metrics.empty()
                              ? !excluded_by_default(name)
                              : std::find(options_.metrics.begin(), options_.metrics.end(), name) != options_.metrics.end();
      if (wanted) metric_ids_.emplace_back(m, trace_.strings.intern(name));
    }
    for (const auto& wanted : options_.metrics)
      if (report_.metric_index(wanted) < 0) result_.warnings.push_back("ncu reported no metric '" + wanted + "'");
  }

  std::vector<const NcuKernel*> instances_in_id_order() const {
    std::vector<const NcuKernel*> ordered;
    for (const auto& k : report_.kernels) ordered.push_back(&k);
    std::stable_sort(ordered.begin(), ordered.end(), [](const NcuKernel* a, const NcuKernel* b) { return a->id < b->id; });
    return ordered;
  }

  // The trace's kernel (display-name id) an ncu kernel name means; kNoIndex when none or ambiguous.
  Index trace_kernel_of(const std::string& ncu_name) {
    if (auto it = by_mangled_.find(ncu_name); it != by_mangled_.end()) return it->second;
    if (auto it = by_display_.find(ncu_name); it != by_display_.end()) return it->second;
    if (auto it = by_base_.find(kernel_base_name(ncu_name)); it != by_base_.end()) {
      if (it->second.size() == 1) return it->second.front();
      ambiguous_names_.insert(ncu_name);
    }
    return kNoIndex;
  }

  void match_instance(const NcuKernel& k) {
    const Index name = trace_kernel_of(k.kernel_name);
    if (name == kNoIndex) {
      if (!ambiguous_names_.count(k.kernel_name)) unknown_names_.insert(k.kernel_name);
      ++result_.unmatched_instances;
      return;
    }
    const Index process = per_process_ ? process_of_pid_.at(k.process_id) : kNoIndex;
    const uint64_t key = group_key(name, process);
    ++instances_of_group_[key];
    const std::size_t i = next_of_group_[key]++;
    auto it = dispatches_of_.find(key);
    if (it == dispatches_of_.end() || i >= it->second.size()) {
      ++result_.unmatched_instances;
      return;
    }
    const Index d = it->second[i];
    if (!same_geometry(k, trace_.dispatches[d])) ++size_mismatches_;
    ++result_.matched_instances;
    add_samples(k, d);
  }

  static bool same_geometry(const NcuKernel& k, const Dispatch& disp) {
    auto block = parse_dim3(k.block_size);
    auto grid = parse_dim3(k.grid_size);
    if (!block || !grid) return true;  // nothing to compare
    bool same = true;
    for (int j = 0; j < 3; ++j) same = same && disp.block[j] == (*block)[j] && disp.grid[j] == (*grid)[j] * (*block)[j];
    return same;
  }

  // Existing samples are kept; a value for a (dispatch, metric) that already has one is not added.
  void add_samples(const NcuKernel& k, Index d) {
    for (const auto& [m, id] : metric_ids_) {
      if (m >= k.values.size() || std::isnan(k.values[m])) continue;
      if (!existing_.insert(sample_key(d, id)).second) continue;
      trace_.counters.push_back({d, id, k.values[m]});
      ++result_.samples_added;
    }
  }

  void warn_about_counts() {
    for (const auto& [key, count] : instances_of_group_) {
      auto it = dispatches_of_.find(key);
      const std::size_t available = it == dispatches_of_.end() ? 0 : it->second.size();
      const std::string& name = trace_.strings.at(static_cast<Index>(key >> 32));
      if (count > available)
        result_.warnings.push_back(fmt::format("{} profiled {} instance(s) of '{}' but the trace has {} dispatch(es) of it: "
                                               "the {} extra instance(s) were skipped (is the trace from the same program "
                                               "and inputs?)",
                                               options_.tool, count, name, available, count - available));
      else if (count < available)
        result_.warnings.push_back(fmt::format("{} profiled {} of the {} dispatch(es) of '{}': only the first {} have "
                                               "counters",
                                               options_.tool, count, available, name, count));
    }
    for (const auto& n : unknown_names_)
      result_.warnings.push_back("ncu kernel '" + n + "' matches no kernel of the trace; its instances were skipped");
    for (const auto& n : ambiguous_names_)
      result_.warnings.push_back("ncu kernel '" + n + "' matches several kernels of the trace by base name; run ncu with "
                                                      "--print-kernel-base mangled");
    if (size_mismatches_)
      result_.warnings.push_back(fmt::format("{} matched instance(s) have a grid or block size different from their "
                                             "dispatch: the launch-order pairing is probably off",
                                             size_mismatches_));
  }

  Trace& trace_;
  const NcuReport& report_;
  const NcuAttachOptions& options_;
  NcuAttachResult result_;
  std::unordered_map<std::string, Index> by_mangled_, by_display_;
  std::unordered_map<std::string, std::vector<Index>> by_base_;  // base name -> display names
  std::unordered_map<int64_t, Index> process_of_pid_;
  bool per_process_ = false;
  std::unordered_map<uint64_t, std::vector<Index>> dispatches_of_;
  std::vector<std::pair<std::size_t, Index>> metric_ids_;
  std::unordered_set<uint64_t> existing_;
  std::unordered_map<uint64_t, std::size_t> next_of_group_, instances_of_group_;
  std::set<std::string> unknown_names_, ambiguous_names_;
  std::size_t size_mismatches_ = 0;
};

}  // namespace

NcuAttachResult attach_ncu_metrics(Trace& trace, const NcuReport& report, const NcuAttachOptions& options) {
  return NcuMatcher(trace, report, options).attach();
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
