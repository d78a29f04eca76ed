// rocm-perf analyze DB... : every analysis over existing rocpd databases, offline.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <optional>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/analyze.hpp"
#include "app/multi_rank.hpp"
#include "report/multi_rank_report.hpp"
#include "support/atomic_file.hpp"
#include "cli/analysis_flags.hpp"
#include "report/analyze_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/terminal_text.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

struct AnalyzeArgs {
  std::vector<std::string> databases;
  AnalysisFlags flags;
  bool ranks = false;                  // --ranks: the inputs are the ranks of one job
  std::optional<std::string> rank_summary;  // --rank-summary FILE
  bool merge_summaries = false;        // --merge-summaries: the inputs are rank summary files
  bool perfetto = false;               // --perfetto: multi_rank.perfetto.json (reads every database again)
  bool no_clock_alignment = false;
};

bool any_directory(const std::vector<std::string>& inputs) {
  for (const auto& in : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(in, ec)) return true;
  }
  return false;
}

void write_json_file(const std::string& path, const nlohmann::json& doc) {
  write_file_atomically(path, [&](std::FILE* f) {
    std::string text = doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fputc('\n', f);
  });
}

std::vector<analysis::RankSummary> read_summary_files(const std::vector<std::string>& files) {
  std::vector<analysis::RankSummary> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    if (!in) throw Error(ExitCode::InputMissing, fmt::format("{}: cannot be read", f));
    auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) throw Error(ExitCode::InputInvalid, fmt::format("{}: not JSON", f));
    for (auto& s : report::rank_summaries_from_document(doc, f)) out.push_back(std::move(s));
  }
  if (out.empty()) throw Error(ExitCode::InputEmpty, "the summary files hold no rank");
  return out;
}

// Distributed jobs: a directory of rank databases, --ranks, --rank-summary or --merge-summaries.
int run_multi_rank(const AnalyzeArgs& a) {
  const app::AnalysisOptions ao = analysis_options(a.flags);
  if (a.merge_summaries && (a.rank_summary || a.perfetto))
    throw Error(ExitCode::Usage, "--merge-summaries reads summaries: --rank-summary and --perfetto need databases");
  std::vector<std::string> databases;
  std::vector<analysis::RankSummary> summaries;
  if (a.merge_summaries) {
    if (!ao.what_if.empty())
      throw Error(ExitCode::Usage, "--what-if applies when the summaries are made (--rank-summary), not at the merge");
    summaries = read_summary_files(a.databases);
  } else {
    databases = app::rank_databases(a.databases);
    app::RankSummaryRead read;
    read.what_if = ao.what_if;
    read.lenient = ao.lenient;
    read.show_progress = show_progress(a.flags.common);
    read.allow_no_rank = a.rank_summary.has_value();
    summaries = app::summarize_databases(databases, read);
  }
  if (a.rank_summary) {
    write_json_file(*a.rank_summary, report::rank_summaries_document(summaries));
    log::info("wrote the summary of {} rank(s) to {}", summaries.size(), *a.rank_summary);
    return 0;
  }
  analysis::MultiRankOptions mo;
  mo.align_clocks = !a.no_clock_alignment;
  analysis::MultiRankResult result = analysis::analyze_ranks(summaries, mo);
  std::filesystem::create_directories(a.flags.output_dir);
  const nlohmann::json doc = report::multi_rank_document(result);
  const std::string dir = a.flags.output_dir;
  write_json_file(dir + "/multi_rank.json", doc);
  if (!a.flags.no_html)
    write_file_atomically(dir + "/multi_rank.html", [&](std::FILE* f) {
      std::string h = report::multi_rank_html(result);
      std::fwrite(h.data(), 1, h.size(), f);
    });
  if (a.perfetto) app::write_rank_perfetto(dir + "/multi_rank.perfetto.json", databases, result, ao.lenient);
  if (a.flags.common.json) {
    fmt::print("{}\n", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } else if (a.flags.common.quiet) {
    fmt::print("{:.6f}\n", result.critical_path.measured_ns / 1e6);
  } else {
    fmt::print("{}", terminal_safe(report::multi_rank_terminal(result)));
    log::info("wrote multi_rank.json{}{} to {}", a.flags.no_html ? "" : ", multi_rank.html",
              a.perfetto ? ", multi_rank.perfetto.json" : "", dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

int run(const AnalyzeArgs& a) {
  set_log_level(a.flags.common);
  if (a.ranks || a.rank_summary || a.merge_summaries || any_directory(a.databases)) return run_multi_rank(a);
  app::AnalyzeOptions options;
  static_cast<app::AnalysisOptions&>(options) = analysis_options(a.flags);
  options.databases = a.databases;
  options.show_progress = show_progress(a.flags.common);

  app::AnalyzeResults results = app::run_analyze(options);
  const report::ReportOptions ro = report_options(a.flags);
  nlohmann::json profile = report::profile_document(results);
  report::write_output_files(a.flags.output_dir, profile, &results, ro);

  if (a.flags.common.json) {
    report::JsonStream out(stdout);
    report::write_combined_document(out, profile, &results, ro);
    out.flush();
    std::fputc('\n', stdout);
  } else if (a.flags.common.quiet) {
    fmt::print("{:.6f}\n", results.stats.timing.runtime_ns / 1e6);
  } else {
    fmt::print("{}", terminal_safe(report::terminal_summary(results, ro)));
    log::info("wrote profile.json, dag.json, analysis.json, roofline.json{} to {}", ro.html ? ", report.html" : "",
              a.flags.output_dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

}  // namespace

Action register_analyze(CLI::App& app) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand("analyze", "Analyse rocpd databases: kernel statistics, occupancy, "
                                                "critical path, what-if");
  cmd->add_option("databases", args->databases, "rocpd SQLite databases (one per process), or directories of them (one job's ranks)")->required();
  add_analysis_flags(cmd, args->flags,
                     {"where profile.json, dag.json, analysis.json, roofline.json and report.html go",
                      "print only the runtime in ms", "verbose logs on stderr"});
  cmd->add_flag("--ranks", args->ranks,
                "the databases are the ranks of one distributed job: analyse across ranks (implied when an input is "
                "a directory)");
  cmd->add_option("--rank-summary", args->rank_summary,
                  "FILE: write the small per-rank summary of the given databases instead of analysing (one task per "
                  "rank of a cluster job; combine with --merge-summaries)");
  cmd->add_flag("--merge-summaries", args->merge_summaries,
                "the inputs are files --rank-summary wrote: analyse across all their ranks");
  cmd->add_flag("--perfetto", args->perfetto,
                "across ranks: also write multi_rank.perfetto.json, one Perfetto process per rank (reads every "
                "database a second time)");
  cmd->add_flag("--no-clock-alignment", args->no_clock_alignment,
                "across ranks: report the estimated per-node clock offsets but do not apply them");
  return [cmd, args]() -> int { return cmd->parsed() ? run(*args) : -1; };
}

}  // namespace rpl::cli
