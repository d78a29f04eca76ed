// rocm-perf export perfetto DB... [-o FILE] [--format json|pftrace] : the trace for ui.perfetto.dev.
// rocm-perf export csv DB... [-o DIR] : the trace as rocprofv3's CSV files.
#include <filesystem>
#include <fmt/core.h>

#include <memory>

#include "app/analyze.hpp"
#include "app/load_trace.hpp"
#include "cli/commands.hpp"
#include "report/perfetto_export.hpp"
#include "report/rocprof_csv.hpp"
#include "report/scratch_memory_report.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::cli {
namespace {

struct CommonArgs {
  std::vector<std::string> databases;
  CommonOptions common;
  bool lenient = false;
};

struct PerfettoArgs : CommonArgs {
  std::string output;
  std::string format = "json";
  bool no_flows = false;
  bool no_critical_path = false;
};

struct CsvArgs : CommonArgs {
  std::string output_dir = "rocm-perf-csv";
  std::string prefix;
  std::string agent_index = "relative";
  std::vector<std::string> library_logs;  // folders of the libraries' API logs; none: found beside the databases
};

void add_common(CLI::App* cmd, CommonArgs& a) {
  cmd->add_option("databases", a.databases, "rocpd SQLite databases (one per process)")->required();
  add_common_flags(cmd, a.common, {/*json=*/nullptr, "no logs", "verbose logs on stderr"});  // writes files only
  cmd->add_flag("--lenient", a.lenient, "drop invalid records (end < start) with a warning");
}

int run_perfetto(PerfettoArgs& a) {
  set_log_level(a.common);
  app::AnalyzeOptions options;
  options.databases = a.databases;
  options.lenient = a.lenient;
  options.show_progress = show_progress(a.common);
  options.node_rows = true;  // the Perfetto exports show each node's slack
  app::AnalyzeResults results = app::run_analyze(options);
  report::PerfettoOptions po;
  po.flows = !a.no_flows;
  po.critical_path_track = !a.no_critical_path;
  if (a.output.empty()) a.output = a.format == "pftrace" ? "trace.pftrace" : "trace.perfetto.json";
  if (a.format == "pftrace")
    report::write_pftrace_file(a.output, results, po);
  else
    report::write_perfetto_file(a.output, results, po);
  log::info("wrote {} ({} dispatches, {} copies): open it in ui.perfetto.dev", a.output,
            results.trace.dispatches.size(), results.trace.copies.size());
  return 0;
}

int run_csv(const CsvArgs& a) {
  set_log_level(a.common);
  Trace trace = app::load_trace({a.databases, a.lenient, show_progress(a.common)});
  report::RocprofCsvOptions options;
  // The calls of cuBLAS, cuBLASLt and cuDNN's API logs (`profile --library-trace` on NVIDIA keeps them beside the
  // run's database, not in it): read before anything is written, so a bad log writes no file.
  std::vector<std::string> folders;
  for (const std::string& dir : a.library_logs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw Error(ExitCode::InputMissing, fmt::format("--library-logs {}: not a folder (give a run's library_logs/ "
                                                      "folder, as `profile --library-trace` writes it)", dir));
    folders.push_back(dir);
  }
  if (folders.empty()) folders = app::library_log_folders(a.databases);
  for (const std::string& dir : folders) {
    std::vector<LoggedLibraryCall> calls = app::load_library_log_folder(dir);
    log::info("{}: {} calls in the libraries' API logs", dir, calls.size());
    options.logged_calls.insert(options.logged_calls.end(), calls.begin(), calls.end());
  }
  options.output_dir = a.output_dir;
  options.prefix = a.prefix;
  options.agent_index = a.agent_index == "absolute" ? report::AgentIndex::Absolute : report::AgentIndex::Relative;
  for (const std::string& path : report::write_rocprof_csv(trace, options)) log::info("wrote {}", path);
  // rocprofv3 --scratch-memory-trace's rows (not in the trace model): written when the databases hold any
  if (const auto scratch = app::load_scratch_memory(a.databases); !scratch.empty()) {
    const std::string name = a.prefix.empty() ? "scratch_memory_trace.csv" : a.prefix + "_scratch_memory_trace.csv";
    const std::string path = (std::filesystem::path(a.output_dir) / name).string();
    report::write_scratch_memory_csv(path, scratch);
    log::info("wrote {}", path);
  }
  return 0;
}

}  // namespace

Action register_export(CLI::App& app) {
  auto perfetto_args = std::make_shared<PerfettoArgs>();
  auto csv_args = std::make_shared<CsvArgs>();
  CLI::App* cmd = app.add_subcommand("export", "Export rocpd databases to other tools' formats");
  cmd->require_subcommand(1);

  CLI::App* perfetto = cmd->add_subcommand(
      "perfetto", "Perfetto trace (JSON trace events, or Perfetto's protobuf format): one track per stream, flows "
                  "for recorded dependencies, the critical path as its own track");
  add_common(perfetto, *perfetto_args);
  perfetto->add_option("-o,--output", perfetto_args->output,
                       "the file to write (default trace.perfetto.json, or trace.pftrace with --format pftrace)");
  perfetto->add_option("--format", perfetto_args->format,
                       "json (Chrome trace events) or pftrace (Perfetto's protobuf trace, for large traces)")
      ->check(CLI::IsMember({"json", "pftrace"}))
      ->capture_default_str();
  perfetto->add_flag("--no-flows", perfetto_args->no_flows, "no dependency arrows");
  perfetto->add_flag("--no-critical-path", perfetto_args->no_critical_path, "no separate critical-path track");

  CLI::App* csv = cmd->add_subcommand(
      "csv", "rocprofv3's CSV files (kernel_trace.csv, memory_copy_trace.csv, hip_api_trace.csv or "
             "cuda_api_trace.csv, ...) with its columns and formats");
  add_common(csv, *csv_args);
  csv->add_option("-o,--output-dir", csv_args->output_dir, "the folder to write the files into")->capture_default_str();
  csv->add_option("--prefix", csv_args->prefix, "file name prefix, as rocprofv3's -o: PREFIX_kernel_trace.csv");
  csv->add_option("--agent-index", csv_args->agent_index,
                  "Agent_Id numbering, as rocprofv3's --agent-index: relative (logical index) or absolute")
      ->check(CLI::IsMember({"relative", "absolute"}))
      ->capture_default_str();
  csv->add_option("--library-logs", csv_args->library_logs,
                  "a folder of cuBLAS / cuBLASLt / cuDNN API logs (a run's library_logs/, with its clock.txt) whose "
                  "calls go to library_trace.csv; default: the library_logs/ found beside each database");

  return [perfetto, csv, perfetto_args, csv_args]() -> int {
    if (perfetto->parsed()) return run_perfetto(*perfetto_args);
    if (csv->parsed()) return run_csv(*csv_args);
    return -1;
  };
}

}  // namespace rpl::cli
