// rocm-perf analyze DB... : every analysis over existing rocpd databases, offline.
#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <optional>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/analyze.hpp"
#include "app/multi_rank.hpp"
#include "app/slack_db.hpp"
#include "report/multi_rank_report.hpp"
#include "cli/analysis_flags.hpp"
#include "report/analyze_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/ordered_parallel.hpp"
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
  std::optional<std::string> slack_db;  // --slack-db FILE: per-node slack rows as a SQLite table
  std::string jobs = "1";               // --jobs N, checked by parse_jobs
};

std::optional<std::string> first_directory(const std::vector<std::string>& inputs) {
  for (const auto& in : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(in, ec)) return in;
  }
  return std::nullopt;
}

// The flags the analysis across ranks does not use: said, not silently dropped.
void warn_ignored_across_ranks(const CLI::App& cmd) {
  std::string ignored;
  for (const char* flag : {"--top", "--kernel", "--api-stats", "--range", "--per-dispatch", "--ceilings",
                           "--memory-bandwidth-gbps", "--infer-dependencies", "--names", "--name-width"})
    if (cmd.count(flag) > 0) ignored += (ignored.empty() ? "" : ", ") + std::string(flag);
  if (!ignored.empty())
    log::warn("{} {} not used by the analysis across ranks and ignored (they apply to one process's analysis: "
              "give its database alone)",
              ignored, ignored.find(',') == std::string::npos ? "is" : "are");
}

// Distributed jobs: a directory of rank databases, --ranks, --rank-summary or --merge-summaries.
int run_multi_rank(const AnalyzeArgs& a, const CLI::App& cmd, unsigned jobs) {
  warn_ignored_across_ranks(cmd);
  const app::AnalysisOptions ao = analysis_options(a.flags);
  app::AcrossRanksOptions o;
  o.inputs = a.databases;
  o.merge_summaries = a.merge_summaries;
  o.rank_summary = a.rank_summary;
  o.perfetto = a.perfetto;
  o.what_if = ao.what_if;
  o.lenient = ao.lenient;
  o.show_progress = show_progress(a.flags.common);
  o.align_clocks = !a.no_clock_alignment;
  o.jobs = jobs;
  const app::AcrossRanksRun run = app::run_across_ranks(o);
  if (!run.result) {
    log::info("wrote the summary of {} rank(s) to {}", run.ranks, *a.rank_summary);
    return 0;
  }
  const analysis::MultiRankResult& result = *run.result;
  const std::string dir = a.flags.output_dir;
  std::filesystem::create_directories(dir);
  const nlohmann::json doc = report::write_multi_rank_files(dir, result, !a.flags.no_html);
  if (a.flags.no_html) {  // an older run's page must not stay beside this run's JSON
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(dir) / "multi_rank.html", ec);
  }
  if (a.perfetto) app::write_rank_perfetto(dir + "/multi_rank.perfetto.json", run.databases, result, ao.lenient);
  if (a.flags.common.json) {
    fmt::print("{}\n", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  } else if (a.flags.common.quiet) {
    // The quantity one process's --quiet prints (its summed kernel time), summed over the ranks.
    TimeNs kernel_time = 0;
    for (const auto& rank : result.ranks) kernel_time += rank.kernel_time_ns;
    fmt::print("{:.6f}\n", static_cast<double>(kernel_time) / 1e6);
  } else {
    fmt::print("{}", terminal_safe(report::multi_rank_terminal(result, report_options(a.flags).width)));
    log::info("wrote multi_rank.json{}{} to {}", a.flags.no_html ? "" : ", multi_rank.html",
              a.perfetto ? ", multi_rank.perfetto.json" : "", dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  return 0;
}

int run_analyze_command(const AnalyzeArgs& a, const CLI::App& cmd) {
  set_log_level(a.flags.common);
  const unsigned jobs = resolve_jobs(parse_jobs(a.jobs));  // a wrong value is refused before any work
  const std::optional<std::string> directory = first_directory(a.databases);
  if (directory && !a.ranks && !a.rank_summary && !a.merge_summaries)
    log::info("{} is a directory: analysing its databases as the ranks of one distributed job (as --ranks does)",
              *directory);
  if (a.ranks || a.rank_summary || a.merge_summaries || directory) return run_multi_rank(a, cmd, jobs);
  app::AnalyzeOptions options;
  static_cast<app::AnalysisOptions&>(options) = analysis_options(a.flags);
  options.databases = a.databases;
  options.show_progress = show_progress(a.flags.common);
  options.slack_db = a.slack_db;
  options.jobs = jobs;

  app::AnalyzeResults results = app::run_analyze(options);
  const report::ReportOptions ro = report_options(a.flags);
  nlohmann::json profile = report::profile_document(results);
  const nlohmann::json analysis = report::analysis_document(results, ro);  // once, for every output below
  {
    Progress progress(options.show_progress);
    progress.phase(fmt::format("writing the outputs to {}", a.flags.output_dir));
    report::write_output_files(a.flags.output_dir, profile, &results, analysis, ro);
    if (options.slack_db) {
      progress.phase(fmt::format("writing {} node rows to {}", results.dag.nodes.size(), *options.slack_db));
      app::write_slack_db(*options.slack_db, results);
    }
  }

  if (a.flags.common.json) {
    report::JsonStream out(stdout);
    report::write_combined_document(out, profile, &results, analysis);
    out.flush();
    std::fputc('\n', stdout);
  } else if (a.flags.common.quiet) {
    fmt::print("{:.6f}\n", results.stats.timing.runtime_ns / 1e6);
  } else {
    fmt::print("{}", terminal_safe(report::terminal_summary(results, analysis.at("findings"), ro)));
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
                      "print only the runtime in ms: the summed kernel time (over every rank of a distributed job)",
                      "verbose logs on stderr"});
  cmd->add_option("--slack-db", args->slack_db,
                  "FILE: also write every dispatch's and copy's earliest start, slack and critical-path flag to the "
                  "SQLite table rpl_node_slack in FILE (created, or replaced if it is an earlier --slack-db output)");
  cmd->add_option("--jobs,-j", args->jobs,
                  "N: read up to N databases at once and run the independent analyses side by side (kernel "
                  "statistics, critical path, what-if); 0: as many as there are cores. Outputs are the same for "
                  "every N; memory grows with N (docs/analyze-scaling.md)")
      ->type_name("UINT")
      ->default_str("1");
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
  return [cmd, args]() -> int { return cmd->parsed() ? run_analyze_command(*args, *cmd) : -1; };
}

}  // namespace rpl::cli
