// compare.json, the terminal comparison and compare.html; see compare_report.hpp.
#include "report/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "report/html_util.hpp"
#include "report/text_table.hpp"
#include "rpl/version.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/terminal_text.hpp"

namespace rpl::report {
namespace {

using namespace rpl::analysis;
using json = nlohmann::json;

json number_or_null(std::optional<double> v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }
json relative(double a, double b) { return a > 0 ? json((b - a) / a) : json(nullptr); }

json test_json(const ChangeTest& t) {
  return {{"significance", to_string(t.verdict)},
          {"basis", t.basis.empty() ? json(nullptr) : json(t.basis)},
          {"t", t.basis.empty() ? json(nullptr) : number_or_null(t.t)},
          {"dof", t.basis.empty() ? json(nullptr) : json(t.dof)}};
}

json side_json(const std::string& label, std::size_t runs, const std::vector<std::string>& devices, double runtime,
               double path, double wall, double shared) {
  return {{"input", label},         {"runs", runs},       {"devices", devices},   {"kernel_time_ns", runtime},
          {"critical_path_ns", path}, {"wall_span_ns", wall}, {"shared_kernel_time_share", shared}};
}

// Kernels with time on either critical path, the largest move first.
std::vector<const KernelChange*> path_contributors(const CompareResult& r) {
  std::vector<const KernelChange*> out;
  for (const auto& k : r.kernels)
    if (k.path_ns_a > 0 || k.path_ns_b > 0) out.push_back(&k);
  std::stable_sort(out.begin(), out.end(), [](const KernelChange* x, const KernelChange* y) {
    return std::abs(x->path_ns_b - x->path_ns_a) > std::abs(y->path_ns_b - y->path_ns_a);
  });
  return out;
}

std::string long_duration_text(double ns) {
  if (ns >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:.2f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

std::string change_text(double a, double b, Presence presence = Presence::Both) {
  if (presence == Presence::OnlyA) return "gone";
  if (presence == Presence::OnlyB) return "new";
  if (!(a > 0)) return b > 0 ? "new" : "0";
  return fmt::format("{:+.1f}%", 100 * (b - a) / a);
}

const char* verdict_text(Significance s) {
  switch (s) {
    case Significance::Significant: return "yes";
    case Significance::WithinNoise: return "noise";
    case Significance::Unknown: return "?";
  }
  return "?";
}

std::string totals_note(const CompareResult& r) {
  if (r.runtime_test.basis.empty())
    return "a single trace on a side has no spread of its total: see each kernel's test below";
  return fmt::format("{} over {} and {} runs (Welch's t = {:.2f})",
                     r.runtime_test.verdict == Significance::Significant ? "significant" : "within the runs' spread",
                     r.runs_a, r.runs_b, r.runtime_test.t);
}

// The name column's width: the name asks for its length (`longest`), up to 60 and 3/8 of the width, before the
// numbers give way (at 80 columns the kernel table keeps its calls). The names as shown at that width (`pairs`
// in `form`, less `less` columns, plus `prefix` on some row) decide whether a narrow terminal stacks the table.
std::size_t name_width_for(TextTable& table, const CompareReportOptions& o, std::size_t longest,
                           const std::vector<NamePair>& pairs, NameForm form, std::size_t less = 0, std::size_t prefix = 0) {
  const std::size_t want = std::max<std::size_t>(
      12, o.name_width ? o.name_width : std::min<std::size_t>({longest, 60, std::max<std::size_t>(24, o.width * 3 / 8)}));
  const KernelNames probe(pairs, form, want > less + 12 ? want - less : 12);
  std::size_t shown = 0;
  for (const auto& p : pairs) shown = std::max(shown, prefix + probe(p.display).size());
  const std::size_t fitted = table.fit(o.width, want, shown);
  return o.name_width ? o.name_width : fitted;
}

void compare_kernels_section(std::string& out, const CompareResult& r, const CompareReportOptions& o) {
  const std::size_t n = std::min(o.top, r.kernels.size());
  out += "\n" + wrap_text(std::string("Kernels, the largest change first (sig: yes = beyond the spread of the ") +
                              (r.runs_a >= 2 && r.runs_b >= 2 ? "runs" : "calls") +
                              ", noise = within it, ? = too few samples; calls A/B; * = launch shapes changed)",
                          o.width, 0, 0);
  std::vector<TextColumn> c = {{"time A", {}, 0}, {"time B", {}, 0}, {"change", {}, 0}, {"sig", {}, 0},
                               {"calls", {}, 1},  {"mean A", {}, 2}, {"mean B", {}, 2}};
  std::vector<NamePair> pairs;
  std::size_t longest = 12;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& k = r.kernels[i];
    c[0].cells.push_back(k.calls_a ? long_duration_text(k.total_a_ns) : "-");
    c[1].cells.push_back(k.calls_b ? long_duration_text(k.total_b_ns) : "-");
    c[2].cells.push_back(change_text(k.total_a_ns, k.total_b_ns, k.presence));
    c[3].cells.push_back(verdict_text(k.test.verdict));
    c[4].cells.push_back(k.calls_a == k.calls_b ? std::to_string(k.calls_a) : fmt::format("{}/{}", k.calls_a, k.calls_b));
    c[5].cells.push_back(k.calls_a ? long_duration_text(k.mean_a_ns) : "-");
    c[6].cells.push_back(k.calls_b ? long_duration_text(k.mean_b_ns) : "-");
    pairs.push_back({k.name, k.mangled_name});
    longest = std::max(longest, k.name.size() + 2);
  }
  bool starred = false;
  for (std::size_t i = 0; i < n; ++i) starred |= r.kernels[i].shapes_changed;
  TextTable table(std::move(c), "kernel");
  const std::size_t width = name_width_for(table, o, longest, pairs, o.names, 2, starred ? 2 : 0);
  const KernelNames names(pairs, o.names, width > 14 ? width - 2 : 12);
  out += table.header();
  for (std::size_t i = 0; i < n; ++i)
    out += table.row(i, (r.kernels[i].shapes_changed ? "* " : "") + names(r.kernels[i].name));
  if (r.kernels.size() > n) out += fitted_line(fmt::format("  ... {} more kernels (compare.json has them all)", r.kernels.size() - n), o.width, 4);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& k = r.kernels[i];
    if (!k.shapes_changed) continue;
    auto list = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
      return s;
    };
    out += wrap_text(fmt::format("* {}: launch shapes A: {}; B: {}", names(k.name), list(k.shapes_a), list(k.shapes_b)),
                     o.width, 2, 4);
  }
}

void path_section(std::string& out, const CompareResult& r, const CompareReportOptions& o) {
  const auto contributors = path_contributors(r);
  const ChangeTest& t = r.critical_path_test;
  const char* verdict = t.basis.empty()                         ? "a single-run comparison"
                        : t.verdict == Significance::Significant ? "significant"
                                                                 : "within the runs' spread";
  out += "\n" + wrap_text(fmt::format("Critical path: {} -> {} ({}, {}); its kernels{}, the largest move first",
                                      long_duration_text(r.critical_path_a_ns), long_duration_text(r.critical_path_b_ns),
                                      change_text(r.critical_path_a_ns, r.critical_path_b_ns), verdict,
                                      r.runs_a >= 2 || r.runs_b >= 2 ? " (in the representative run)" : ""),
                          o.width, 0, 2);
  if (contributors.empty()) return;
  const std::size_t n = std::min(o.top, contributors.size());
  std::vector<TextColumn> c = {{"on path A", {}, 0}, {"on path B", {}, 0}, {"share A", {}, 1}, {"share B", {}, 1}};
  std::vector<NamePair> pairs;
  std::size_t longest = 12;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& k = *contributors[i];
    c[0].cells.push_back(k.path_ns_a > 0 ? long_duration_text(k.path_ns_a) : "-");
    c[1].cells.push_back(k.path_ns_b > 0 ? long_duration_text(k.path_ns_b) : "-");
    c[2].cells.push_back(fmt::format("{:.1f}%", 100 * k.path_fraction_a));
    c[3].cells.push_back(fmt::format("{:.1f}%", 100 * k.path_fraction_b));
    pairs.push_back({k.name, k.mangled_name});
    longest = std::max(longest, k.name.size());
  }
  TextTable table(std::move(c), "kernel");
  const KernelNames names(pairs, o.names, name_width_for(table, o, longest, pairs, o.names));
  out += table.header();
  for (std::size_t i = 0; i < n; ++i) out += table.row(i, names(contributors[i]->name));
}

void ranges_section(std::string& out, const CompareResult& r, const CompareReportOptions& o) {
  if (r.ranges.empty()) return;
  const std::size_t n = std::min(o.top, r.ranges.size());
  out += "\n" + wrap_text("Ranges (NVTX / ROCTx): host time, and the GPU busy time of the work launched inside", o.width, 0, 2);
  std::vector<TextColumn> c = {{"host A", {}, 0}, {"host B", {}, 0}, {"change", {}, 0}, {"GPU A", {}, 1},
                               {"GPU B", {}, 1},  {"count A", {}, 2}, {"count B", {}, 2}};
  std::size_t longest = 12;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = r.ranges[i];
    c[0].cells.push_back(s.count_a ? long_duration_text(static_cast<double>(s.host_a_ns)) : "-");
    c[1].cells.push_back(s.count_b ? long_duration_text(static_cast<double>(s.host_b_ns)) : "-");
    c[2].cells.push_back(change_text(static_cast<double>(s.host_a_ns), static_cast<double>(s.host_b_ns), s.presence));
    c[3].cells.push_back(s.gpu_kernels_a ? long_duration_text(static_cast<double>(s.gpu_busy_a_ns)) : "-");
    c[4].cells.push_back(s.gpu_kernels_b ? long_duration_text(static_cast<double>(s.gpu_busy_b_ns)) : "-");
    c[5].cells.push_back(std::to_string(s.count_a));
    c[6].cells.push_back(std::to_string(s.count_b));
    longest = std::max(longest, s.name.size());
  }
  std::vector<NamePair> pairs;
  for (std::size_t i = 0; i < n; ++i) pairs.push_back({r.ranges[i].name, ""});
  TextTable table(std::move(c), "range");
  const std::size_t width = name_width_for(table, o, longest, pairs, NameForm::Short);
  out += table.header();
  for (std::size_t i = 0; i < n; ++i) out += table.row(i, shorten_middle(one_line(r.ranges[i].name), width));
}

std::string opt_text(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string("-");
}

std::string compare_level_text(const std::optional<MemLevel>& l) {
  if (!l) return "-";
  std::string name = mem_level_name(*l);
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return name;
}

const char* roofline_change(const RooflineMove& m) {
  if (m.presence == Presence::OnlyA) return "gone";
  if (m.presence == Presence::OnlyB) return "new";
  return m.moved ? "moved" : "same";
}

// Points that moved, appeared (only B has a point) or went (only A has one), in that order.
std::vector<const RooflineMove*> roofline_changes(const CompareResult& r) {
  std::vector<const RooflineMove*> out;
  for (Presence p : {Presence::Both, Presence::OnlyB, Presence::OnlyA})
    for (const auto& m : r.roofline)
      if (m.presence == p && (p != Presence::Both || m.moved)) out.push_back(&m);
  return out;
}

void roofline_section(std::string& out, const CompareResult& r, const CompareReportOptions& o) {
  if (r.roofline.empty()) return;
  std::size_t both = 0, moved = 0, added = 0, gone = 0;
  for (const auto& m : r.roofline) {
    both += m.presence == Presence::Both;
    moved += m.presence == Presence::Both && m.moved;
    added += m.presence == Presence::OnlyB;
    gone += m.presence == Presence::OnlyA;
  }
  out += "\n" + wrap_text(fmt::format("Roofline points: {} of {} kernels with a point in both runs moved (more than "
                                      "{:.0f}% in intensity, FLOP/s or bandwidth, or bound); {} appeared in B, {} "
                                      "gone from B (no point: not run, or run without counters)",
                                      moved, both, 100 * kRooflineMoveThreshold, added, gone),
                          o.width, 0, 2);
  const std::vector<const RooflineMove*> changes = roofline_changes(r);
  if (changes.empty()) return;
  const std::size_t n = std::min(o.top, changes.size());
  // A and B in one cell each ("A > B"), so that a narrow terminal drops a quantity, never half of one.
  std::vector<TextColumn> c = {{"point", {}, 0},      {"GB/s A > B", {}, 0}, {"at", {}, 0},
                               {"FLOP/B A > B", {}, 2}, {"GFLOP/s A > B", {}, 3}, {"bound", {}, 1, true}};
  auto pair = [](const std::optional<double>& a, const std::optional<double>& b, const char* format) {
    return opt_text(a, format) + " > " + opt_text(b, format);
  };
  std::vector<NamePair> pairs;
  std::size_t longest = 12;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& m = *changes[i];
    c[0].cells.push_back(roofline_change(m));
    c[1].cells.push_back(pair(m.gbps_a, m.gbps_b, "{:.3g}"));
    c[2].cells.push_back(compare_level_text(m.bandwidth_level));
    c[3].cells.push_back(pair(m.intensity_a, m.intensity_b, "{:.3g}"));
    c[4].cells.push_back(pair(m.gflops_a, m.gflops_b, "{:.3g}"));
    c[5].cells.push_back(m.presence != Presence::Both ? std::string(to_string(m.presence == Presence::OnlyA ? m.bound_a
                                                                                                           : m.bound_b))
                         : m.bound_a == m.bound_b
                             ? std::string(to_string(m.bound_a))
                             : fmt::format("{}>{}", to_string(m.bound_a), to_string(m.bound_b)));
    pairs.push_back({m.name, ""});
    longest = std::max(longest, m.name.size());
  }
  TextTable table(std::move(c), "kernel");
  const KernelNames names(pairs, o.names, name_width_for(table, o, longest, pairs, o.names));
  out += table.header();
  for (std::size_t i = 0; i < n; ++i) out += table.row(i, names(changes[i]->name));
  if (changes.size() > n) out += fitted_line(fmt::format("  ... {} more (compare.json has them all)", changes.size() - n), o.width, 4);
}

void write_compare_text(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::FILE* f) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw Error(ExitCode::OutputFailed, fmt::format("cannot write {} (disk full?)", path));
  });
}

}  // namespace

json compare_document(const CompareResult& r) {
  json doc;
  doc["schema_version"] = kCompareSchemaVersion;
  doc["a"] = side_json(r.label_a, r.runs_a, r.devices_a, r.runtime_a_ns, r.critical_path_a_ns, r.wall_span_a_ns,
                       r.shared_share_a);
  doc["b"] = side_json(r.label_b, r.runs_b, r.devices_b, r.runtime_b_ns, r.critical_path_b_ns, r.wall_span_b_ns,
                       r.shared_share_b);
  json kt = test_json(r.runtime_test);
  kt["a_ns"] = r.runtime_a_ns;
  kt["b_ns"] = r.runtime_b_ns;
  kt["relative_change"] = relative(r.runtime_a_ns, r.runtime_b_ns);
  doc["kernel_time"] = kt;
  json contributors = json::array();
  for (const KernelChange* k : path_contributors(r))
    contributors.push_back({{"name", k->name}, {"a_ns", k->path_ns_a}, {"b_ns", k->path_ns_b},
                            {"a_fraction", k->path_fraction_a}, {"b_fraction", k->path_fraction_b}});
  json path = test_json(r.critical_path_test);
  path.update({{"a_ns", r.critical_path_a_ns},
               {"b_ns", r.critical_path_b_ns},
               {"relative_change", relative(r.critical_path_a_ns, r.critical_path_b_ns)},
               {"statement", critical_path_statement(r)},
               {"contributors", contributors}});
  doc["critical_path"] = std::move(path);
  json kernels = json::array();
  for (const auto& k : r.kernels) {
    json j = test_json(k.test);
    j.update({{"name", k.name}, {"mangled_name", k.mangled_name}, {"presence", to_string(k.presence)},
              {"runtime_kernel", k.runtime_kernel}, {"calls_a", k.calls_a}, {"calls_b", k.calls_b},
              {"total_a_ns", k.total_a_ns}, {"total_b_ns", k.total_b_ns}, {"delta_ns", k.delta_ns},
              {"relative_change", relative(k.total_a_ns, k.total_b_ns)}, {"mean_a_ns", k.mean_a_ns},
              {"mean_b_ns", k.mean_b_ns}, {"shapes_a", k.shapes_a}, {"shapes_b", k.shapes_b},
              {"shapes_changed", k.shapes_changed}, {"path_a_ns", k.path_ns_a}, {"path_b_ns", k.path_ns_b}});
    kernels.push_back(std::move(j));
  }
  doc["kernels"] = std::move(kernels);
  json ranges = json::array();
  for (const auto& s : r.ranges)
    ranges.push_back({{"name", s.name}, {"presence", to_string(s.presence)}, {"count_a", s.count_a},
                      {"count_b", s.count_b}, {"host_a_ns", s.host_a_ns}, {"host_b_ns", s.host_b_ns},
                      {"gpu_busy_a_ns", s.gpu_busy_a_ns}, {"gpu_busy_b_ns", s.gpu_busy_b_ns},
                      {"gpu_kernels_a", s.gpu_kernels_a}, {"gpu_kernels_b", s.gpu_kernels_b}});
  doc["ranges"] = std::move(ranges);
  json roofline = json::array();
  for (const auto& m : r.roofline)
    roofline.push_back({{"name", m.name}, {"presence", to_string(m.presence)},
                        {"intensity_a", number_or_null(m.intensity_a)},
                        {"intensity_b", number_or_null(m.intensity_b)}, {"gflops_a", number_or_null(m.gflops_a)},
                        {"gflops_b", number_or_null(m.gflops_b)}, {"hbm_gbps_a", number_or_null(m.hbm_gbps_a)},
                        {"hbm_gbps_b", number_or_null(m.hbm_gbps_b)},
                        {"bandwidth_level", m.bandwidth_level ? json(mem_level_name(*m.bandwidth_level)) : json(nullptr)},
                        {"gbps_a", number_or_null(m.gbps_a)}, {"gbps_b", number_or_null(m.gbps_b)},
                        {"roof_fraction_a", number_or_null(m.roof_fraction_a)},
                        {"roof_fraction_b", number_or_null(m.roof_fraction_b)}, {"bound_a", to_string(m.bound_a)},
                        {"bound_b", to_string(m.bound_b)}, {"moved", m.moved}});
  doc["roofline"] = std::move(roofline);
  doc["warnings"] = r.warnings;
  return doc;
}

std::string compare_terminal(const CompareResult& r, const CompareReportOptions& o) {
  std::string out;
  auto side = [&](const char* which, const std::string& label, std::size_t runs, const std::vector<std::string>& devices) {
    std::string devs;
    for (const auto& d : devices) devs += (devs.empty() ? "" : ", ") + one_line(d);
    out += wrap_text(fmt::format("{} = {} ({} run{}{}{})", which, one_line(label), runs, runs == 1 ? "" : "s",
                                 devs.empty() ? "" : ", ", devs),
                     o.width, 2, 6);
  };
  out += "Comparing run B with run A\n";
  side("A", r.label_a, r.runs_a, r.devices_a);
  side("B", r.label_b, r.runs_b, r.devices_b);
  for (const auto& w : r.warnings) out += wrap_text("warning: " + w, o.width, 2, 4);

  std::size_t both = 0, gone = 0, added = 0, faster = 0, slower = 0;
  for (const auto& k : r.kernels) {
    both += k.presence == Presence::Both;
    gone += k.presence == Presence::OnlyA;
    added += k.presence == Presence::OnlyB;
    if (k.presence == Presence::Both && k.test.verdict == Significance::Significant) (k.delta_ns < 0 ? faster : slower)++;
  }
  const std::pair<const char*, std::pair<double, double>> rows[] = {
      {"kernel time", {r.runtime_a_ns, r.runtime_b_ns}},
      {"critical path", {r.critical_path_a_ns, r.critical_path_b_ns}},
      {"wall (window)", {r.wall_span_a_ns, r.wall_span_b_ns}}};
  // The three totals side by side; a terminal too narrow for that says each in a sentence.
  std::string totals = fmt::format("\n  {:<14}{:>10}  {:>10}  {:>8}\n", "", "A", "B", "change");
  for (const auto& row : rows) {
    const std::string a = long_duration_text(row.second.first), b = long_duration_text(row.second.second);
    const std::string change = change_text(row.second.first, row.second.second);
    const std::string line = fmt::format("  {:<14}{:>10}  {:>10}  {:>8}", row.first, a, b, change);
    if (line.size() > o.width) {
      totals = "\n";
      for (const auto& each : rows)
        totals += wrap_text(fmt::format("{}: A {}, B {}, {}", each.first, long_duration_text(each.second.first),
                                        long_duration_text(each.second.second),
                                        change_text(each.second.first, each.second.second)),
                            o.width, 2, 4);
      break;
    }
    totals += line + '\n';
  }
  out += totals;
  out += wrap_text(fmt::format("kernel time: {}. Kernels: {} in both ({} significantly faster, {} slower), {} gone, "
                               "{} new.",
                               totals_note(r), both, faster, slower, gone, added),
                   o.width, 2, 2);
  out += wrap_text(fmt::format("critical path: {}.", critical_path_statement(r)), o.width, 2, 2);
  compare_kernels_section(out, r, o);
  path_section(out, r, o);
  ranges_section(out, r, o);
  roofline_section(out, r, o);
  return out;
}

std::string compare_html(const CompareResult& r) {
  using html::duration;
  using html::escape;
  using html::put;
  std::string h;
  put(h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\" />\n<title>rocm-perf: compare</title>\n"
         "<style>{}</style></head>\n<body><main>\n<h1>Run B compared with run A</h1>\n<div class=\"sub\">A: {} ({} "
         "run{}) &middot; B: {} ({} run{}) &middot; generated by rocm-perf {}</div>\n",
      html::page_style(), escape(r.label_a), r.runs_a, r.runs_a == 1 ? "" : "s", escape(r.label_b), r.runs_b,
      r.runs_b == 1 ? "" : "s", escape(kVersion));
  h += "<div class=\"cards\">";
  auto card = [&](double a, double b, const char* what) {
    put(h, "<div class=\"card\"><b>{}</b><span>{}: {} &rarr; {}</span></div>", escape(change_text(a, b)), what,
        duration(a), duration(b));
  };
  card(r.runtime_a_ns, r.runtime_b_ns, "kernel time");
  card(r.critical_path_a_ns, r.critical_path_b_ns, r.critical_path_test.verdict == Significance::Significant
                                                       ? "critical path (significant)"
                                                       : "critical path");
  card(r.wall_span_a_ns, r.wall_span_b_ns, "wall (window)");
  h += "</div>\n";
  for (const auto& w : r.warnings) put(h, "<div class=\"warn\">{}</div>\n", escape(w));
  put(h, "<p class=\"sub\">Kernel time: {}.</p>\n", escape(totals_note(r)));

  h += "<h2>Kernels</h2>\n<table id=\"compare-kernels\"><thead><tr><th>time A</th><th>time B</th><th>change</th>"
       "<th>significant</th><th>calls A</th><th>calls B</th><th>mean A</th><th>mean B</th><th>shapes</th>"
       "<th class=\"name\">kernel</th></tr></thead><tbody>\n";
  for (const auto& k : r.kernels)
    put(h, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
           "<td class=\"text\" title=\"{}\">{}</td></tr>\n",
        k.calls_a ? duration(k.total_a_ns) : "-", k.calls_b ? duration(k.total_b_ns) : "-",
        change_text(k.total_a_ns, k.total_b_ns, k.presence), verdict_text(k.test.verdict), k.calls_a, k.calls_b,
        k.calls_a ? duration(k.mean_a_ns) : "-", k.calls_b ? duration(k.mean_b_ns) : "-",
        k.shapes_changed ? "changed" : "", escape(k.name), escape(html::shorten(k.name, 120)));
  h += "</tbody></table>\n";

  put(h, "<h2>Critical path</h2>\n<p class=\"sub\" id=\"path-significance\">{} &rarr; {} ({}): {}.</p>\n"
         "<p class=\"sub\">The kernels on it{}, the largest move first.</p>\n",
      duration(r.critical_path_a_ns), duration(r.critical_path_b_ns),
      escape(change_text(r.critical_path_a_ns, r.critical_path_b_ns)), escape(critical_path_statement(r)),
      r.runs_a >= 2 || r.runs_b >= 2 ? " in the representative (median) run" : "");
  h += "<table id=\"compare-path\"><thead><tr><th>on path A</th><th>on path B</th><th>share A</th><th>share B</th>"
       "<th class=\"name\">kernel</th></tr></thead><tbody>\n";
  for (const KernelChange* k : path_contributors(r))
    put(h, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text\" title=\"{}\">{}</td></tr>\n",
        duration(k->path_ns_a), duration(k->path_ns_b), html::percent(k->path_fraction_a),
        html::percent(k->path_fraction_b), escape(k->name), escape(html::shorten(k->name, 120)));
  h += "</tbody></table>\n";

  h += "<h2>Ranges (NVTX / ROCTx)</h2>\n";
  if (r.ranges.empty()) h += "<p class=\"sub\">Neither run recorded a range.</p>\n";
  else {
    h += "<table id=\"compare-ranges\"><thead><tr><th>host A</th><th>host B</th><th>change</th><th>GPU busy A</th>"
         "<th>GPU busy B</th><th>count A</th><th>count B</th><th class=\"name\">range</th></tr></thead><tbody>\n";
    for (const auto& s : r.ranges)
      put(h, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"text\">{}"
             "</td></tr>\n",
          s.count_a ? duration(static_cast<double>(s.host_a_ns)) : "-",
          s.count_b ? duration(static_cast<double>(s.host_b_ns)) : "-",
          change_text(static_cast<double>(s.host_a_ns), static_cast<double>(s.host_b_ns), s.presence),
          duration(static_cast<double>(s.gpu_busy_a_ns)), duration(static_cast<double>(s.gpu_busy_b_ns)), s.count_a,
          s.count_b, escape(s.name));
    h += "</tbody></table>\n";
  }

  h += "<h2>Roofline points</h2>\n";
  if (r.roofline.empty()) h += "<p class=\"sub\">No kernel has a roofline point in either run (profile with "
                               "<code>--roofline</code>).</p>\n";
  else {
    h += "<p class=\"sub\">moved: more than 10% in intensity, FLOP/s or the bandwidth of a memory level, or another "
         "bound; new / gone: a point in B / A only (the other run did not run the kernel, or ran it without "
         "counters). Bandwidth at device memory, or at the busiest level where neither run counted device-memory "
         "bytes.</p>\n";
    h += "<table id=\"compare-roofline\"><thead><tr><th>point</th><th>FLOP/B A</th><th>FLOP/B B</th><th>FLOP/s A</th>"
         "<th>FLOP/s B</th><th>GB/s A</th><th>GB/s B</th><th>at</th><th>bound A</th><th>bound B</th>"
         "<th class=\"name\">kernel</th></tr></thead><tbody>\n";
    for (const auto& m : r.roofline)
      put(h, "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
             "<td>{}</td><td class=\"text\" title=\"{}\">{}</td></tr>\n",
          roofline_change(m), opt_text(m.intensity_a, "{:.2f}"), opt_text(m.intensity_b, "{:.2f}"),
          m.gflops_a ? html::rate(*m.gflops_a) : "-", m.gflops_b ? html::rate(*m.gflops_b) : "-",
          opt_text(m.gbps_a, "{:.3g}"), opt_text(m.gbps_b, "{:.3g}"), compare_level_text(m.bandwidth_level),
          m.presence == Presence::OnlyB ? "-" : to_string(m.bound_a),
          m.presence == Presence::OnlyA ? "-" : to_string(m.bound_b), escape(m.name), escape(html::shorten(m.name, 120)));
    h += "</tbody></table>\n";
  }
  h += "</main></body></html>\n";
  return h;
}

json write_compare_files(const std::string& dir, const CompareResult& r, bool html) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", dir, ec.message()));
  const json doc = compare_document(r);
  write_compare_text(dir + "/compare.json", doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  if (html) write_compare_text(dir + "/compare.html", compare_html(r));
  else std::filesystem::remove(std::filesystem::path(dir) / "compare.html", ec);  // not an older run's page
  return doc;
}

}  // namespace rpl::report
