// rocm-perf profile [options] [--] APP [ARGS...]: run the application N times under the platform's
// collector (or with no profiler: --no-rocprof) and write the same outputs as analyze, plus the traces.
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "app/load_trace.hpp"
#include "app/profile.hpp"
#include "app/profile_presets.hpp"
#include "cli/analysis_flags.hpp"
#include "report/analyze_report.hpp"
#include "report/library_trace.hpp"
#include "report/perfetto_export.hpp"
#include "report/scratch_memory_report.hpp"
#include "support/errors.hpp"
#include "support/terminal_text.hpp"
#include "support/log.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

bool g_double_dash = false;  // `--` appeared on the command line

// The seeds' form `rocm-perf profile ./app --json` hands --json to the application (the application may
// take such a flag itself). Without `--`, say so loudly, once per flag.
void warn_about_trailing_flags(const std::vector<std::string>& command) {
  static const char* const kOwnFlags[] = {"--json", "--quiet", "--runs", "-o", "--output-dir", "--roofline", "--deep",
                                          "--kernel", "--range", "--top", "--what-if", "--debug", "--no-rocprof",
                                          "--platform", "--counter-tool", "--counter-launches", "--timeout",
                                          "--preset", "--counters", "--api-stats", "--names", "--name-width",
                                          "--width", "--no-html", "--lenient", "--ceilings", "--per-dispatch",
                                          "--infer-dependencies", "--memory-bandwidth-gbps",
                                          "--monitor-device", "--sampling-interval", "--pc-sampling",
                                          "--library-trace", "--scratch-memory-trace"};
  // The flags that take a value: the suggestion moves the value with its flag.
  static const std::set<std::string> kWithValue = {
      "--runs",     "-o",        "--output-dir",  "--kernel",     "--range",      "--top",
      "--what-if",  "--platform", "--counter-tool", "--counter-launches", "--timeout", "--preset",
      "--counters", "--names",   "--name-width",  "--width",      "--ceilings",   "--memory-bandwidth-gbps",
      "--sampling-interval"};
  if (g_double_dash) return;
  for (std::size_t i = 1; i < command.size(); ++i)
    for (const char* flag : kOwnFlags) {
      const std::string& arg = command[i];
      if (arg != flag && arg.rfind(std::string(flag) + "=", 0) != 0) continue;
      std::string moved = arg;
      if (arg == flag && kWithValue.count(arg)) moved += i + 1 < command.size() ? " " + command[i + 1] : " VALUE";
      log::warn("'{}' follows the application, so it is passed to the application, not to rocm-perf; put rocm-perf "
                "options before the application (rocm-perf profile {} -- {} ...)",
                arg, moved, command[0]);
    }
}

struct ProfileArgs {
  std::vector<std::string> command;
  AnalysisFlags flags;
  unsigned runs = 5;
  bool no_rocprof = false;
  std::string platform = "auto";
  bool roofline = false;
  bool deep = false;
  std::string counter_tool = "auto";
  std::size_t counter_launches = 0;
  double timeout_s = 0;
  std::string preset;
  std::optional<std::string> counters_file;
  bool monitor_device = false;
  unsigned sampling_interval_ms = 0;  // 0: not given (100 ms when monitoring)
  bool pc_sampling = false;
  bool library_trace = false;
  bool scratch_memory_trace = false;
  bool rank_wrapper = false;
  bool runs_given = false;
  std::vector<std::string> given;  // the options on the command line, by long name (--rank-wrapper's check)
};

// The launcher form's options that only shape the analysis and its report. A rank analyses nothing
// (`rocm-perf analyze DIR` does, over every rank, and takes these options), so given with --rank-wrapper they
// are refused with exit 17 before anything runs instead of being dropped. --kernel and --lenient also choose
// and read the counter pass's kernels, so a rank honours them when it runs one. --quiet and --debug are
// honoured: they set what a rank logs (it prints nothing on stdout).
void refuse_analysis_flags_in_a_rank(const ProfileArgs& a, const app::ProfileOptions& o) {
  static const std::set<std::string> kAnalysisOnly = {
      "--json",  "--top",   "--what-if", "--infer-dependencies", "--ceilings",   "--memory-bandwidth-gbps",
      "--no-html", "--range", "--api-stats", "--names",          "--name-width", "--width",
      "--per-dispatch"};
  const bool counter_pass = o.roofline || o.deep || o.counters_file || !o.preset_counter_file.empty();
  std::vector<std::string> refused;
  for (const std::string& flag : a.given)
    if (kAnalysisOnly.count(flag) || (!counter_pass && (flag == "--kernel" || flag == "--lenient")))
      refused.push_back(flag);
  if (refused.empty()) return;
  throw Error(ExitCode::Unsupported,
              fmt::format("{} cannot be honoured with --rank-wrapper: a rank records its trace{} and analyses "
                          "nothing; give {} to `rocm-perf analyze {}` after the job (it analyses every rank). "
                          "Nothing was run",
                          fmt::join(refused, ", "), counter_pass ? " and counters" : "",
                          refused.size() == 1 ? "it" : "them", a.flags.output_dir));
}

// library_trace.csv and library_calls.json of the representative run (--library-trace, --preset full); on AMD
// also the rocBLAS calls its profile log counted in the run's folder (no times); on NVIDIA the cuBLAS, cuBLASLt and
// cuDNN calls of their API logs in the run's folder, linked to the kernels they launched.
void write_library_files(const std::string& dir, const Trace& trace, const std::string& platform,
                         const std::string& run_dir) {
  const bool amd = platform == "rocm";
  const std::vector<LibraryCallCount> counted = amd ? app::load_library_call_counts(run_dir) : std::vector<LibraryCallCount>{};
  const std::vector<LoggedLibraryCall> logged = amd ? std::vector<LoggedLibraryCall>{} : app::load_logged_library_calls(run_dir);
  const report::LibraryOutputs written = report::write_library_outputs(
      dir, trace,
      amd ? "ROCTx markers of hipBLASLt and MIOpen (rocprofv3 --marker-trace); rocBLAS calls counted by its profile log "
            "(ROCBLAS_LAYER=4)"
          : "NVTX ranges (CUPTI); cuBLAS, cuBLASLt and cuDNN API logs (CUBLAS_LOGINFO_DBG, CUBLASLT_LOG_LEVEL, "
            "CUDNN_LOGLEVEL_DBG) linked to kernels by time window and order",
      counted, amd ? nullptr : &logged);
  const std::size_t calls = written.calls;
  int64_t counted_calls = 0;
  for (const LibraryCallCount& c : counted) counted_calls += c.calls;
  if (calls == 0 && counted.empty())
    log::warn("no library call was recorded: {}", amd ? "hipBLASLt and MIOpen mark their calls only when built with "
                                                        "markers (ROCTx), and rocBLAS wrote no profile log"
                                                      : "no NVTX range names a cuBLAS or cuDNN call and their API logs "
                                                        "(run folder: library_logs/) list none");
  // The library ran but none of its calls was found: say so, or an empty library_trace.csv reads as "the library
  // was not used".
  for (const analysis::LibraryKernelsWithoutCalls& k : written.kernels_without_calls)
    log::warn("{} {} kernel dispatch{} ran ({} kernel{}, e.g. {}) but no {} call was recorded: the library put no {} "
              "range around its calls in this run{}, so they are not in library_trace.csv (library_calls.json: "
              "kernels_without_calls; docs/profile-presets.md, \"Library calls\")",
              k.dispatches, k.library, k.dispatches == 1 ? "" : "es", k.kernels, k.kernels == 1 ? "" : "s",
              one_line(k.example.size() > 100 ? k.example.substr(0, 97) + "..." : k.example), k.library,
              amd ? "ROCTx" : "NVTX", amd ? "" : " and its API log listed none");
  if (counted_calls > 0)
    log::info("rocBLAS's profile log counted {} calls of {} function and argument sets (counts only: no times)",
              counted_calls, counted.size());
  if (written.logged && written.logged->links.calls > 0) {
    const analysis::LoggedCallLinks& l = written.logged->links;
    log::info("the libraries' API logs listed {} calls ({} set-up calls): {} linked by time window and {} by order (to "
              "{} kernels), {} ambiguous, {} without kernels in their window, {} outside the trace, {} without a time",
              l.calls, l.set_up, l.time_window, l.order, l.linked_kernels, l.ambiguous, l.no_kernels, l.not_in_trace,
              l.untimed);
    if (l.not_in_trace > 0)
      log::warn("{} logged library calls could not be linked: their process is not in the trace or the log's clock "
                "does not match it", l.not_in_trace);
  }
  log::info("wrote {}/library_trace.csv ({} library calls) and library_calls.json", dir, calls);
}

// scratch_memory.json (and scratch_memory_trace.csv when the runtime's operations were recorded) of the
// representative run (--scratch-memory-trace, --preset communication).
void write_scratch_files(const std::string& dir, const app::ProfileResults& p) {
  const bool amd = p.platform == "rocm";
  const std::vector<ScratchOperation> ops =
      amd ? app::load_scratch_memory(p.runs[p.representative_run].databases) : std::vector<ScratchOperation>{};
  const std::size_t kernels = report::write_scratch_outputs(
      dir, ops, p.analysis->trace,
      amd ? "rocprofv3 --scratch-memory-trace (rocpd_memory_allocate, level SCRATCH)"
          : "NVIDIA records no scratch allocations; kernels: local memory per thread (CUPTI)");
  if (amd && ops.empty()) log::warn("rocprofv3 recorded no scratch-memory operation in the representative run");
  log::info("wrote {}/scratch_memory.json ({} scratch operations, {} kernels using scratch)", dir, ops.size(), kernels);
}

int run_profile_command(const ProfileArgs& a) {
  set_log_level(a.flags.common);
  warn_about_trailing_flags(a.command);
  app::ProfileOptions o;
  o.argv = a.command;
  o.runs = a.runs;
  o.runs_given = a.runs_given;
  o.output_dir = a.flags.output_dir;
  o.timing_only = a.no_rocprof;
  o.platform = platform::parse_kind(a.platform);
  o.analysis = analysis_options(a.flags);
  o.roofline = a.roofline;
  o.deep = a.deep;
  o.counter_tool = collectors::parse_counter_tool(a.counter_tool);
  o.counter_launches = a.counter_launches;
  o.debug = a.flags.common.debug;
  o.show_progress = show_progress(a.flags.common);
  o.timeout_s = a.timeout_s;
  o.counters_file = a.counters_file;
  o.monitor_device = a.monitor_device || a.sampling_interval_ms > 0;  // an interval implies monitoring
  if (a.sampling_interval_ms > 0) o.sampling_interval_ms = a.sampling_interval_ms;
  o.pc_sampling = a.pc_sampling;
  for (auto [asked, flag] : {std::pair{a.library_trace, "--library-trace"}, std::pair{a.scratch_memory_trace, "--scratch-memory-trace"}})
    if (asked && a.no_rocprof)
      throw Error(ExitCode::Usage, fmt::format("{} needs the profiler's trace: it cannot be combined with --no-rocprof", flag));
  o.trace.library_calls = a.library_trace;
  o.trace.scratch_memory = a.scratch_memory_trace;
  // after the explicit flags: a preset adds to them, never takes them back
  if (!a.preset.empty()) app::apply_preset(app::find_preset(a.preset), o);

  if (a.rank_wrapper) {
    refuse_analysis_flags_in_a_rank(a, o);
    app::RankWrapperResult w = app::run_rank_wrapper(o);
    for (const auto& db : w.databases) log::info("rank database: {}", db);
    if (!w.process.ok()) {
      log::warn("the application {} (its output: {})", w.process.describe(), w.run_dir);
      return w.process.signal ? 128 + w.process.signal : w.process.exit_code == 0 ? 1 : w.process.exit_code;
    }
    if (w.device_samples > 0) log::info("stored {} device samples in the rank's database", w.device_samples);
    if (w.counters) log::info("stored {} counter values in the rank's database", w.counters->values_stored);
    if (o.analysis.api_stats || o.perfetto || o.trace_json)
      log::info("the preset's API statistics and Perfetto trace are analysis outputs, not written by a rank: "
                "rocm-perf analyze {} --perfetto (every rank), rocm-perf analyze {} --api-stats (this rank)",
                a.flags.output_dir, w.databases.empty() ? w.run_dir : w.databases.front());
    if (o.trace.library_calls || o.trace.scratch_memory)
      log::info("the {} are in the rank's database: rocm-perf export csv {} writes {}",
                o.trace.library_calls ? "library calls" : "scratch-memory operations",
                w.databases.empty() ? w.run_dir : w.databases.front(),
                o.trace.library_calls ? "library_trace.csv" : "scratch_memory_trace.csv");
    return w.counter_failure ? static_cast<int>(ExitCode::CounterPassFailed) : 0;
  }
  app::ProfileResults p = app::run_profile(o);
  if (p.analysis && p.analysis->trace.processes.size() > 1)
    log::info("{} processes were profiled: for the analysis across ranks run rocm-perf analyze {}", 
              p.analysis->trace.processes.size(), p.runs[p.representative_run].run_dir);
  const report::ReportOptions ro = report_options(a.flags);
  nlohmann::json profile = report::profile_command_document(p);
  const app::AnalyzeResults* analysis = p.analysis ? &*p.analysis : nullptr;
  // analysis.json, built once for every output that shows part of it.
  const nlohmann::json analysis_doc = analysis ? report::analysis_document(*analysis, ro) : nlohmann::json(nullptr);
  report::write_output_files(a.flags.output_dir, profile, analysis, analysis_doc, ro);
  if (o.trace.library_calls && analysis)
    write_library_files(a.flags.output_dir, analysis->trace, p.platform, p.runs[p.representative_run].run_dir);
  if (o.trace.scratch_memory && analysis) write_scratch_files(a.flags.output_dir, p);
  for (auto [wanted, name] : {std::pair{o.perfetto, "trace.perfetto.json"}, std::pair{o.trace_json, "trace.json"}}) {
    if (!wanted || !analysis) continue;
    const std::string trace = (std::filesystem::path(a.flags.output_dir) / name).string();
    report::write_perfetto_file(trace, *analysis);
    log::info("wrote {}: open it in ui.perfetto.dev", trace);
  }

  if (a.flags.common.json) {
    report::JsonStream out(stdout);
    report::write_combined_document(out, profile, analysis, analysis_doc);
    out.flush();
    std::fputc('\n', stdout);
  } else if (a.flags.common.quiet) {
    fmt::print("{:.6f}\n", p.runtime_across_runs.mean_ns / 1e6);
  } else {
    fmt::print("{}", terminal_safe(report::profile_terminal_summary(p, analysis_doc, ro)));
    log::info("wrote outputs and per-run traces to {}", a.flags.output_dir);
  }
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
  if (p.counter_failure) return static_cast<int>(ExitCode::CounterPassFailed);
  return p.pc_sampling_failure ? static_cast<int>(ExitCode::ProfilerFailed) : 0;
}

}  // namespace

void note_command_line(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--") g_double_dash = true;
}

Action register_profile(CLI::App& app) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand("profile", "Run an application under the GPU collector (N runs) and analyse it");
  cmd->add_option("command", args->command, "the application and its arguments (put -- before it)")->required();
  cmd->add_option("--runs", args->runs, "runs, each a separate process")
      ->capture_default_str()
      ->check(positive_count())
      ->each([args](const std::string&) { args->runs_given = true; });
  add_analysis_flags(cmd, args->flags,
                     {"outputs and per-run traces", "print only the runtime in ms (mean over runs)",
                      "show the profiler's own logs and verbose logs on stderr"});
  cmd->add_flag("--no-rocprof", args->no_rocprof, "timing only: whole-process wall time over N runs, no profiler");
  cmd->add_option("--platform", args->platform, "auto, rocm or cuda")->capture_default_str();
  cmd->add_flag("--roofline", args->roofline,
                "after the trace runs, a counter pass (NVIDIA: ncu or CUPTI; AMD: rocprofv3 -i) for the roofline and the "
                "bottleneck labels; see docs/profile-counters.md");
  cmd->add_flag("--deep", args->deep,
                "deep analysis of the kernels (NVIDIA: ncu stall, occupancy, branch and cache metrics; AMD: a "
                "rocprofv3 --att run); use --kernel to choose them");
  cmd->add_option("--counter-tool", args->counter_tool,
                  "NVIDIA counter pass: ncu, cupti (in process, CUPTI range profiler: about half ncu's cost, but "
                  "no cache flush between replay passes), or auto (ncu where installed, else cupti)")
      ->capture_default_str();
  cmd->add_option("--counter-launches", args->counter_launches,
                  "N: the CUPTI counter pass profiles only the first N launches of each kernel (the rest run "
                  "unprofiled; the roofline and labels come from those N)")
      ->check(positive_count());
  cmd->add_flag("--monitor-device", args->monitor_device,
                "sample power, energy, clocks, temperature, memory used and utilisation of every GPU during each run "
                "(NVIDIA: NVML; AMD: ROCm SMI, unvalidated); see docs/device-monitor.md");
  cmd->add_option("--sampling-interval", args->sampling_interval_ms,
                  "MS: the device monitor's interval in milliseconds (default 100; implies --monitor-device)")
      ->check(CLI::Range(1u, 60000u));
  cmd->add_flag("--pc-sampling", args->pc_sampling,
                "after the trace runs, a PC-sampling run: the hottest instructions and source lines per kernel with "
                "their stall reasons (NVIDIA: CUPTI PC sampling; AMD: rocprofv3, unvalidated); see docs/pc-sampling.md");
  cmd->add_flag("--library-trace", args->library_trace,
                "record calls into hipBLASLt and MIOpen (AMD: their ROCTx markers, unvalidated; rocBLAS: call counts "
                "from its profile log, no times) or cuBLAS, cuBLASLt and cuDNN (NVIDIA: their NVTX ranges where they "
                "emit any, else their own API logs, CUBLAS_LOGINFO_DBG / CUBLASLT_LOG_LEVEL / CUDNN_LOGLEVEL_DBG, "
                "linked to the kernels each call launched; the logging slows the run) and write library_trace.csv and "
                "library_calls.json; warns when a library's kernels ran but none of its calls was recorded; see "
                "docs/profile-presets.md");
  cmd->add_flag("--scratch-memory-trace", args->scratch_memory_trace,
                "record the runtime's scratch (private segment) allocations (AMD: rocprofv3 --scratch-memory-trace, "
                "unvalidated) and write scratch_memory.json with the kernels that need scratch (NVIDIA: their local "
                "memory; no allocation records) and scratch_memory_trace.csv");
  cmd->add_option("--timeout", args->timeout_s, "seconds per run before the application is killed (0: none)");
  std::string presets;
  for (const auto& p : app::profile_presets()) presets += "\n  " + p.name + ": " + p.collects;
  cmd->add_option("--preset", args->preset,
                  "NAME: a ready-made profile (docs/profile-presets.md); explicit flags add to it, --counters replaces "
                  "its counter file; exits 17 when the platform cannot honour it:" + presets)
      ->check(CLI::IsMember(app::preset_names()));
  cmd->add_option("--counters", args->counters_file,
                  "FILE: collect the counters of a rocprofv3-format counter file ('pmc: A B C' lines, one pass each; "
                  "NVIDIA: ncu/CUPTI metric names) after the trace runs; checked against the device first "
                  "(share/counters/ has per-architecture files; rocm-perf counters list)");
  cmd->add_flag("--rank-wrapper", args->rank_wrapper,
                "run as one rank inside a launcher (srun rocm-perf profile --rank-wrapper -o DIR -- ./app): trace once "
                "into DIR/ranks/rank-<R>/ with the preset's trace settings, device samples and counter passes, no "
                "analysis; --runs N, --pc-sampling, AMD --deep and the analysis and report options (--json, --top, --what-if, "
                "..., --kernel without a counter pass) exit 17; the application's exit status is returned");
  cmd->positionals_at_end();
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    for (const CLI::Option* opt : cmd->get_options())
      if (opt->count() > 0) args->given.push_back(opt->get_name());
    return run_profile_command(*args);
  };
}

}  // namespace rpl::cli
