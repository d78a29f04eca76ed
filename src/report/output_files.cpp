#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "report/analyze_report.hpp"
#include "report/html_report.hpp"
#include "report/summaries_report.hpp"
#include "report/roofline_report.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"

namespace rpl::report {

void write_combined_document(JsonStream& out, const nlohmann::json& profile, const app::AnalyzeResults* r,
                             const nlohmann::json& analysis) {
  out.begin_object();
  out.key("schema_version");
  out.value(std::string_view(kSchemaVersion));
  out.key("profile");
  out.value(profile);
  out.key("dag");
  if (r)
    write_dag_document(out, *r);
  else
    out.null();
  out.key("analysis");
  if (r)
    out.value(analysis);
  else
    out.null();
  out.end_object();
}

void write_output_files(const std::string& dir, const nlohmann::json& profile, const app::AnalyzeResults* r,
                        const nlohmann::json& analysis, const ReportOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create output directory {}: {}", dir, ec.message()));
  // A report.html of an earlier run must not stay beside this run's JSON if this run fails before
  // writing its own (or writes none).
  std::filesystem::remove(std::filesystem::path(dir) / "report.html", ec);
  auto path = [&](const char* name) { return (std::filesystem::path(dir) / name).string(); };
  write_file_atomically(path("profile.json"), [&](std::FILE* f) {
    JsonStream out(f);
    out.value(profile);
    out.flush();
  });
  if (!r) return;
  write_file_atomically(path("dag.json"), [&](std::FILE* f) {
    JsonStream out(f);
    write_dag_document(out, *r);
    out.flush();
  });
  write_file_atomically(path("analysis.json"), [&](std::FILE* f) {
    JsonStream out(f);
    out.value(analysis);
    out.flush();
  });
  write_file_atomically(path("roofline.json"), [&](std::FILE* f) {
    JsonStream out(f);
    out.value(roofline_json(*r));
    out.flush();
  });
  write_summary_csvs(dir, *r);
  if (options.html) {
    RooflineView view = roofline_view(*r);
    HtmlOptions html;
    html.top = std::max<std::size_t>(options.top, 20);
    html.kernel_filter = options.kernel_filter.value_or("");
    html.findings = &analysis.at("findings");
    write_html_report(path("report.html"), *r, &view, html);
  }
}

}  // namespace rpl::report
