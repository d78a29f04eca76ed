#pragma once
// Internal to the HTML report (html_report.cpp, html_roofline.cpp, html_timeline.cpp): escaping, number
// formatting, and the two SVG sections.
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "report/html_report.hpp"

namespace rpl::report::html {

// Appends `s` escaped for HTML text and attribute values (& < > " '); control characters are dropped
// and invalid UTF-8 becomes U+FFFD, so any kernel name gives a well-formed page.
void escape_to(std::string& out, std::string_view s);
inline std::string escape(std::string_view s) {
  std::string out;
  escape_to(out, s);
  return out;
}

// At most `width` bytes, cut on a UTF-8 character boundary, "..." appended when cut.
std::string shorten(std::string_view s, std::size_t width);

std::string duration(double ns);         // "850 ns", "12.3 us", "4.56 ms", "1.23 s"
std::string percent(double fraction);    // "12.3%"
std::string rate(double gflops);         // "512 GFLOP/s", "163.4 TFLOP/s"
std::string bandwidth(double gbps);      // "900 GB/s", "5.30 TB/s"

// The report's stylesheet (system fonts only, no external asset): report.html and multi_rank.html share it.
const char* page_style();

// A time axis in an SVG: a grid line from grid_top to grid_bottom and a tick label at label_y every "nice"
// step (1, 2, 5 x 10^k ns) over [0, span_ns], starting at x0.
void time_axis(std::string& out, double span_ns, double x0, double px_per_ns, double label_y, double grid_top,
               double grid_bottom);

template <typename... Args>
void put(std::string& out, fmt::format_string<Args...> f, Args&&... args) {
  fmt::format_to(std::back_inserter(out), f, std::forward<Args>(args)...);
}

// The <section> bodies. Both return complete, balanced markup.
std::string roofline_section(const RooflineView* view);
std::string timeline_section(const app::AnalyzeResults& r, const HtmlOptions& options);

}  // namespace rpl::report::html
