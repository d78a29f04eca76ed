#include "report/summaries_report.hpp"

#include <fmt/format.h>

#include "report/kernel_names.hpp"
#include "report/text_table.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/terminal_text.hpp"
#include "report/units.hpp"

namespace rpl::report {
namespace {


std::string mib(uint64_t bytes) { return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0)); }

// A CSV text field: one line (control characters escaped), in double quotes, a quote inside doubled.
std::string csv_text(std::string_view s) {
  std::string out = "\"";
  for (char c : one_line(s)) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_text(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::FILE* f) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw Error(ExitCode::OutputFailed, fmt::format("cannot write {} (disk full?)", path));
  });
}

}  // namespace

nlohmann::json copy_summary_json(const std::vector<analysis::CopyKindSummary>& copies) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : copies)
    out.push_back({{"kind", c.kind}, {"count", c.count}, {"bytes", c.bytes}, {"total_ns", c.total_ns},
                   {"min_ns", c.min_ns}, {"max_ns", c.max_ns}, {"bandwidth_gbps", c.gbps}});
  return out;
}

nlohmann::json range_summary_json(const std::vector<analysis::RangeSummary>& ranges) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : ranges)
    out.push_back({{"name", s.name}, {"count", s.count}, {"total_ns", s.total_ns}, {"min_ns", s.min_ns},
                   {"max_ns", s.max_ns}, {"gpu_kernels", s.gpu_kernels}, {"gpu_copies", s.gpu_copies},
                   {"gpu_busy_ns", s.gpu_busy_ns}, {"gpu_span_ns", s.gpu_span_ns}});
  return out;
}

std::string summaries_terminal(const app::AnalyzeResults& r, std::size_t top, std::size_t width) {
  std::string out;
  const auto copies = analysis::copy_summary(r.trace);
  if (!copies.empty()) {
    out += "\nMemory copies in the window, by kind\n";
    std::vector<TextColumn> c = {{"count", {}, 0}, {"bytes", {}, 0}, {"total", {}, 0}, {"bandwidth", {}, 0},
                                 {"max", {}, 1}};
    for (std::size_t i = 0; i < copies.size() && i < top; ++i) {
      c[0].cells.push_back(std::to_string(copies[i].count));
      c[1].cells.push_back(mib(copies[i].bytes));
      c[2].cells.push_back(duration_text(static_cast<double>(copies[i].total_ns)));
      c[3].cells.push_back(fmt::format("{:.1f} GB/s", copies[i].gbps));
      c[4].cells.push_back(duration_text(static_cast<double>(copies[i].max_ns)));
    }
    std::vector<std::string> kinds;
    for (std::size_t i = 0; i < copies.size() && i < top; ++i) kinds.push_back(one_line(copies[i].kind));
    TextTable table(std::move(c), "kind");
    // kinds shorten in the middle (MEMORY_COPY_..._DEVICE)
    const std::size_t name_width = table.fit(width, 12, longest_text(kinds));
    out += table.header();
    for (std::size_t i = 0; i < kinds.size(); ++i) out += table.row(i, shorten_middle(kinds[i], name_width));
  }
  const auto& ranges = r.ranges;
  if (!ranges.empty()) {
    out += "\n" + wrap_text("Ranges (NVTX / ROCTx, whole trace), by host time: host = push to pop; GPU busy = the "
                            "kernels and copies launched inside, on the range's thread",
                            width, 0, 0);
    std::vector<TextColumn> c = {{"count", {}, 0},   {"host total", {}, 0}, {"host mean", {}, 2}, {"GPU busy", {}, 0},
                                 {"kernels", {}, 1}, {"copies", {}, 3},     {"max", {}, 4}};
    for (std::size_t i = 0; i < ranges.size() && i < top; ++i) {
      const auto& s = ranges[i];
      c[0].cells.push_back(std::to_string(s.count));
      c[1].cells.push_back(duration_text(static_cast<double>(s.total_ns)));
      c[2].cells.push_back(duration_text(static_cast<double>(s.total_ns) / static_cast<double>(s.count)));
      c[3].cells.push_back(s.gpu_kernels + s.gpu_copies ? duration_text(static_cast<double>(s.gpu_busy_ns)) : std::string("-"));
      c[4].cells.push_back(std::to_string(s.gpu_kernels));
      c[5].cells.push_back(std::to_string(s.gpu_copies));
      c[6].cells.push_back(duration_text(static_cast<double>(s.max_ns)));
    }
    std::vector<std::string> names;
    for (std::size_t i = 0; i < ranges.size() && i < top; ++i) names.push_back(one_line(ranges[i].name));
    TextTable table(std::move(c), "range");
    const std::size_t name_width = table.fit(width, 12, longest_text(names));  // range names shorten in the middle
    out += table.header();
    for (std::size_t i = 0; i < names.size(); ++i) out += table.row(i, shorten_middle(names[i], name_width));
    if (ranges.size() > top) out += fitted_line(fmt::format("  ... {} more (range_stats.csv has them all)", ranges.size() - top), width, 4);
  }
  return out;
}

void write_summary_csvs(const std::string& dir, const app::AnalyzeResults& r) {
  // rocprofv3 --stats columns: Name, Calls, TotalDurationNs, AverageNs, Percentage, MinNs, MaxNs, StdDev.
  std::string kernels = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n";
  for (const auto& k : r.stats.kernels)
    kernels += fmt::format("{},{},{:.0f},{:.3f},{:.6f},{:.0f},{:.0f},{:.3f}\n", csv_text(k.name), k.durations.count,
                           k.durations.total_ns, k.durations.mean_ns, 100 * k.share_of_gpu_time, k.durations.min_ns,
                           k.durations.max_ns, k.durations.stddev_ns);
  write_text(dir + "/kernel_stats.csv", kernels);

  const auto copies = analysis::copy_summary(r.trace);
  TimeNs copy_total = 0;
  for (const auto& c : copies) copy_total += c.total_ns;
  std::string copy_csv = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
                         "\"Bytes\",\"BandwidthGBps\"\n";
  for (const auto& c : copies)
    copy_csv += fmt::format("{},{},{},{:.3f},{:.6f},{},{},{},{:.6f}\n", csv_text(c.kind), c.count, c.total_ns,
                            static_cast<double>(c.total_ns) / static_cast<double>(c.count),
                            copy_total ? 100.0 * static_cast<double>(c.total_ns) / static_cast<double>(copy_total) : 0.0,
                            c.min_ns, c.max_ns, c.bytes, c.gbps);
  write_text(dir + "/memory_copy_stats.csv", copy_csv);

  const auto& ranges = r.ranges;
  TimeNs range_total = 0;
  for (const auto& s : ranges) range_total += s.total_ns;
  // rocprofv3's columns, then the GPU time of the work launched inside (ours).
  std::string range_csv = "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
                          "\"GpuKernels\",\"GpuCopies\",\"GpuBusyNs\",\"GpuSpanNs\"\n";
  for (const auto& s : ranges)
    range_csv += fmt::format("{},{},{},{:.3f},{:.6f},{},{},{},{},{},{}\n", csv_text(s.name), s.count, s.total_ns,
                             static_cast<double>(s.total_ns) / static_cast<double>(s.count),
                             range_total ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(range_total) : 0.0,
                             s.min_ns, s.max_ns, s.gpu_kernels, s.gpu_copies, s.gpu_busy_ns, s.gpu_span_ns);
  write_text(dir + "/range_stats.csv", range_csv);
}

}  // namespace rpl::report
