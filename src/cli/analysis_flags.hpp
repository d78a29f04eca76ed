#pragma once
// The flags `analyze` and `profile` share, added to both commands by one function so that they cannot
// drift apart: the output flags, the report flags and app::AnalysisOptions.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/analyze.hpp"
#include "cli/commands.hpp"
#include "report/analyze_report.hpp"

namespace rpl::cli {

struct AnalysisFlags {
  std::string output_dir = "rocm-perf-out";
  CommonOptions common;
  std::size_t top = 10;
  bool no_html = false;
  std::vector<std::string> what_if;  // REGEX=FACTOR, parsed by analysis_options()
  std::string names = "short";       // --names short|full|mangled
  std::size_t name_width = 0;        // --name-width N (0: what the width leaves)
  std::size_t width = 0;             // --width N (0: the terminal's, else 80)
  app::AnalysisOptions analysis;     // every other field is set by its flag directly
};

// What differs between the two commands in the shared flags' help.
struct AnalysisFlagsHelp {
  const char* output_dir;
  const char* quiet;
  const char* debug;
};

// Adds -o/--output-dir, --json, --quiet, --debug, --top, --what-if, --kernel, --lenient, --infer-dependencies,
// --ceilings, --memory-bandwidth-gbps, --per-dispatch, --no-html, --names, --name-width and --width to `cmd`.
void add_analysis_flags(CLI::App* cmd, AnalysisFlags& flags, const AnalysisFlagsHelp& help);

// The analysis options the flags ask for (what-if specifications parsed: rpl::Error(Usage) when malformed).
app::AnalysisOptions analysis_options(const AnalysisFlags& flags);
report::ReportOptions report_options(const AnalysisFlags& flags);

}  // namespace rpl::cli
