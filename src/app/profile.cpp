#include "app/profile.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <unordered_map>
#include <unistd.h>

#include "model/rank_identity.hpp"

#include "app/profile_presets.hpp"
#include "collectors/collector_factory.hpp"
#include "collectors/counter_catalog.hpp"
#include "collectors/device_monitor.hpp"
#include "store/rocpd_device_metrics.hpp"
#include "support/errors.hpp"
#include "support/input_file.hpp"
#include "support/log.hpp"
#include "support/user_regex.hpp"
#include "support/progress.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

// What profile offers when the machine shows no GPU platform.
constexpr const char* kTraceAdvice = "use --platform rocm or --platform cuda, or --no-rocprof for timing only";

std::string fresh_run_dir(const std::string& output_dir, unsigned index) {
  fs::path dir = fs::path(output_dir) / "runs" / fmt::format("run-{}", index);
  std::error_code ec;
  fs::remove_all(dir, ec);  // only our own run directory from an earlier profile
  fs::create_directories(dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  return dir.string();
}

[[noreturn]] void application_failed(const RunRecord& run, const std::string& command) {
  throw Error(ExitCode::ApplicationFailed,
              fmt::format("the application {} in run {} ({}); its stderr ({}) ends with:\n{}", run.process.describe(),
                          run.index, command, run.stderr_file, tail_of_file(run.stderr_file)));
}

// --monitor-device: samples the platform's devices around each run; nullptr when not asked for.
std::unique_ptr<collectors::DeviceMonitor> make_monitor(const ProfileOptions& o, platform::Kind kind,
                                                        ProfileResults& out) {
  if (!o.monitor_device) return nullptr;
  auto monitor = std::make_unique<collectors::DeviceMonitor>(collectors::open_device_metric_source(kind),
                                                             std::chrono::milliseconds(o.sampling_interval_ms));
  out.device_monitor = monitor->source().name();
  out.sampling_interval_ms = o.sampling_interval_ms;
  return monitor;
}

// The run's samples: summarised, and stored in its first database (the samples are the device's, not one
// process's, so one copy; the analysis of that database then draws them).
void keep_device_samples(RunRecord& run, std::vector<DeviceMetricSeries> series, ProfileResults& out) {
  if (run.index == 1)
    for (const auto& s : series)
      if (s.metric == "gpu_utilization" && !s.values.empty())
        out.utilization_before_first_run_pct = std::max(out.utilization_before_first_run_pct.value_or(0), s.values.front());
  run.devices = analysis::summarize_device_metrics(series);
  if (!run.databases.empty()) run.device_samples = rocpd::append_device_metrics(run.databases.front(), series);
}

std::size_t median_index(const std::vector<RunRecord>& runs) {
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return runs[a].runtime_ns < runs[b].runtime_ns; });
  return order[(order.size() - 1) / 2];
}

analysis::DurationStats stats_of(const std::vector<RunRecord>& runs) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(r.runtime_ns);
  return analysis::compute_duration_stats(v);
}

// Stability across the runs and what the device monitor saw that makes timings irreproducible; the warnings
// go to stderr at once.
analysis::RunToRun stability_across_runs(const ProfileResults& out) {
  std::vector<std::vector<analysis::DeviceMetricSummary>> devices;
  for (const auto& r : out.runs) devices.push_back(r.devices);
  std::vector<analysis::KernelRunToRun> kernels;
  for (const auto& k : out.kernels_across_runs) kernels.push_back({k.name, k.total_per_run});
  auto r = analysis::run_to_run(out.runtime_across_runs, out.runs.size(), kernels,
                                analysis::device_state_warnings(devices, out.utilization_before_first_run_pct));
  for (const auto& w : r.warnings) log::warn("reproducibility: {}", w);
  return r;
}

void run_timing_only(const ProfileOptions& o, ProfileResults& out, Progress& progress) {
  auto monitor = o.monitor_device ? make_monitor(o, o.platform ? *o.platform : platform::detect("use --platform, or leave out --monitor-device"), out) : nullptr;
  for (unsigned i = 1; i <= o.runs; ++i) {
    progress.update(fmt::format("run {}/{} (timing only)", i, o.runs));
    RunRecord run;
    run.index = i;
    run.run_dir = fresh_run_dir(o.output_dir, i);
    run.stdout_file = (fs::path(run.run_dir) / "app.stdout").string();
    run.stderr_file = (fs::path(run.run_dir) / "app.stderr").string();
    ProcessSpec spec;
    spec.argv = o.argv;
    spec.stdout_file = run.stdout_file;
    spec.stderr_file = run.stderr_file;
    spec.timeout_s = o.timeout_s;
    if (monitor) monitor->start();
    run.process = run_process(spec);
    if (monitor) keep_device_samples(run, monitor->stop(), out);
    run.runtime_ns = run.process.wall_ns;
    if (!run.process.ok()) application_failed(run, o.argv[0]);
    out.runs.push_back(std::move(run));
  }
}

// The counter file to collect (--counters FILE, else the preset's shipped file for the device's
// architecture), checked against what the device can count: an unsupported counter is named with its file
// and line before anything runs.
analysis::CounterFile prepare_counter_file(const ProfileOptions& o, platform::Kind kind) {
  std::optional<analysis::CounterFile> file;
  if (o.counters_file)
    file = analysis::parse_counter_file(read_input_file(*o.counters_file, "counter file"), *o.counters_file);
  if (!file) {
    const std::string arch = collectors::check_device_counters(kind, o.counter_device, {}).arch;
    const auto text = shipped_counter_file(arch, o.preset_counter_file);
    if (!text)
      throw Error(ExitCode::Unsupported,
                  fmt::format("--preset {} needs its {} for this GPU's architecture '{}', and none ships with rocm-perf "
                              "(share/counters/ has {}); pass --counters FILE with this GPU's counter names "
                              "(rocm-perf counters list). Nothing was run",
                              o.preset, o.preset_counter_file, arch, fmt::join(shipped_counter_archs(), ", ")));
    file = analysis::parse_counter_file(*text, fmt::format("share/counters/{}/{}", arch.substr(0, arch.find(':')),
                                                           o.preset_counter_file));
  }
  const auto check = collectors::check_device_counters(kind, o.counter_device, file->all_counters());
  if (!check.unsupported.empty()) {
    std::vector<std::string> named;
    for (const auto& c : check.unsupported) named.push_back(fmt::format("{} ({})", c, file->where(c)));
    throw Error(ExitCode::Unsupported,
                fmt::format("{} counter(s) not supported by device {} ({}): {}; `rocm-perf counters list --device {}` "
                            "shows what it supports. Nothing was run",
                            check.unsupported.size(), o.counter_device, check.arch, fmt::join(named, ", "),
                            o.counter_device));
  }
  return *file;
}

void run_traced(const ProfileOptions& o, platform::Kind kind, ProfileResults& out, Progress& progress) {
  out.platform = platform::to_string(kind);
  auto collector = collectors::make_collector(kind);
  out.collector = collector->name();
  auto monitor = make_monitor(o, kind, out);
  // Checked before the application runs: a bad pattern fails at once with exit 2.
  if (o.analysis.kernel_filter) UserRegex check(*o.analysis.kernel_filter, "--kernel");

  std::unordered_map<std::string, std::vector<double>> kernel_totals;  // per kernel, one entry per run
  for (unsigned i = 1; i <= o.runs; ++i) {
    progress.update(fmt::format("run {}/{} under {}", i, o.runs, out.collector));
    RunRecord run;
    run.index = i;
    run.run_dir = fresh_run_dir(o.output_dir, i);
    platform::CollectRequest req{o.argv, run.run_dir, o.debug, o.timeout_s, o.trace};
    if (monitor) monitor->start();
    platform::CollectResult c = collector->collect(req);
    std::vector<DeviceMetricSeries> samples = monitor ? monitor->stop() : std::vector<DeviceMetricSeries>{};
    run.process = c.process;
    run.databases = c.databases;
    if (monitor) keep_device_samples(run, std::move(samples), out);
    run.stdout_file = c.stdout_file;
    run.stderr_file = c.stderr_file;
    if (!run.process.ok()) application_failed(run, o.argv[0]);

    // Each run's runtime and kernel totals: the kernel filter applies, and so does --lenient (a run's
    // trace is read as the representative one is).
    AnalyzeOptions ao;
    ao.databases = run.databases;
    ao.kernel_filter = o.analysis.kernel_filter;
    ao.lenient = o.analysis.lenient;
    ao.range = o.analysis.range;
    AnalyzeResults per_run = run_analyze(ao);
    run.runtime_ns = per_run.stats.timing.runtime_ns;
    for (const auto& k : per_run.stats.kernels) {
      auto& totals = kernel_totals[k.name];
      totals.resize(i - 1, 0.0);  // earlier runs without this kernel count 0
      totals.push_back(k.durations.total_ns);
    }
    out.runs.push_back(std::move(run));
  }
  // A kernel missing from a run counts 0 there.
  for (auto& [name, totals] : kernel_totals) {
    totals.resize(o.runs, 0.0);
    out.kernels_across_runs.push_back({name, analysis::compute_duration_stats(totals)});
  }
  std::sort(out.kernels_across_runs.begin(), out.kernels_across_runs.end(), [](const auto& a, const auto& b) {
    return a.total_per_run.mean_ns != b.total_per_run.mean_ns ? a.total_per_run.mean_ns > b.total_per_run.mean_ns
                                                              : a.name < b.name;
  });
}

// A counter file asked for, by --counters or by the preset.
bool wants_counter_file(const ProfileOptions& o) { return o.counters_file || !o.preset_counter_file.empty(); }

// Every refusal that needs no platform: before anything runs.
void check_profile_options(const ProfileOptions& o) {
  if (o.argv.empty()) throw Error(ExitCode::Usage, "no application given: rocm-perf profile [options] -- APP [ARGS...]");
  if (o.runs == 0) throw Error(ExitCode::Usage, "--runs must be at least 1");
  check_analysis_options(o.analysis);
  if (o.timing_only && (o.roofline || o.deep))
    throw Error(ExitCode::Usage, "--roofline and --deep need the profiler: they cannot be combined with --no-rocprof");
  if (o.timing_only && o.pc_sampling)
    throw Error(ExitCode::Usage, "--pc-sampling needs the profiler: it cannot be combined with --no-rocprof");
  if (o.monitor_device && (o.sampling_interval_ms < 1 || o.sampling_interval_ms > 60'000))
    throw Error(ExitCode::Usage, fmt::format("--sampling-interval {} ms is out of range: 1 to 60000 ms",
                                             o.sampling_interval_ms));
  if (o.counter_launches > 0 && !o.roofline && !o.deep && !wants_counter_file(o))
    throw Error(ExitCode::Usage, "--counter-launches limits the counter pass: it needs --roofline, --deep or --counters");
  if (o.counter_launches > 0 && o.counter_tool == collectors::CounterTool::Ncu)
    throw Error(ExitCode::Usage, "--counter-launches needs the CUPTI counter pass (--counter-tool cupti): ncu's launch "
                                 "limits are not per kernel");
  if (o.timing_only && wants_counter_file(o))
    throw Error(ExitCode::Usage, "--counters needs the profiler: it cannot be combined with --no-rocprof");
}

// The counter pass after the trace run(s): its values stored in `databases`. A failure that is not a usage
// error is kept in `failure` (the trace stands on its own) and nullopt returned.
std::optional<CounterCollection> counter_pass(const ProfileOptions& o, const std::optional<analysis::CounterFile>& file,
                                              const std::vector<std::string>& databases, double baseline_wall_ns,
                                              const std::string& run_dir, std::optional<std::string>& failure) {
  CounterCollectionOptions co;
  co.roofline = o.roofline;
  co.deep = o.deep;
  co.counter_tool = o.counter_tool;
  co.launches_per_kernel = o.counter_launches;
  co.argv = o.argv;
  co.run_dir = run_dir;
  co.kernel_filter = o.analysis.kernel_filter;
  co.timeout_s = o.timeout_s;
  co.debug = o.debug;
  co.lenient = o.analysis.lenient;
  co.counter_file = file;
  try {
    return collect_counters(co, databases, baseline_wall_ns);
  } catch (const Error& e) {
    // Fail-safe: the trace stands on its own. Usage errors are the user's to fix and still stop here.
    if (e.code() == ExitCode::Usage) throw;
    failure = e.what();
    log::warn("the counter pass failed, so there is no roofline and no counter-based label: {}; every other "
              "output is written (exit status {})",
              e.what(), static_cast<int>(ExitCode::CounterPassFailed));
    return std::nullopt;
  }
}

// --rank-wrapper runs the application once inside the launcher's slot and analyses nothing: what needs more
// runs than the counter passes, or an analysis of its own, is refused (exit 17) before anything runs.
void check_rank_wrapper_options(const ProfileOptions& o) {
  const std::string why =
      "; profile the job through its launcher instead (rocm-perf profile ... -- mpirun/torchrun ...), see "
      "docs/multi-gpu.md. Nothing was run";
  if (o.runs_given && o.runs != 1)
    throw Error(ExitCode::Unsupported, fmt::format("--runs {} cannot be honoured with --rank-wrapper: a rank traces its "
                                                   "application once per launch{}", o.runs, why));
  if (o.pc_sampling)
    throw Error(ExitCode::Unsupported,
                fmt::format("{} cannot be honoured with --rank-wrapper: PC-sampling hotspots are reported only in "
                            "profile.json, which a rank does not write{}",
                            o.preset.empty() ? std::string("--pc-sampling") : fmt::format("--preset {} (PC sampling)", o.preset),
                            why));
}

}  // namespace

ProfileResults run_profile(const ProfileOptions& o) {
  check_profile_options(o);
  const bool counter_file = wants_counter_file(o);
  ProfileResults out;
  out.preset = preset_json(o);
  out.command = o.argv;
  out.mode = o.timing_only ? "timing-only" : "trace";
  out.platform = "none";
  out.collector = "none";
  // Everything that can refuse the request is checked before the application runs.
  std::optional<platform::Kind> kind;
  std::optional<analysis::CounterFile> counters;
  if (!o.timing_only) {
    kind = o.platform ? *o.platform : platform::detect(kTraceAdvice);
    check_platform_support(o, *kind, platform_support(*kind));
    if (counter_file) counters = prepare_counter_file(o, *kind);
  }
  Progress progress(o.show_progress);
  if (o.timing_only)
    run_timing_only(o, out, progress);
  else
    run_traced(o, *kind, out, progress);
  out.runtime_across_runs = stats_of(out.runs);
  out.representative_run = median_index(out.runs);
  out.run_to_run = stability_across_runs(out);

  if (!o.timing_only && (o.roofline || o.deep || counters)) {
    progress.update("counter pass");
    const RunRecord& rep = out.runs[out.representative_run];
    out.counters = counter_pass(o, counters, rep.databases, rep.process.wall_ns,
                                (fs::path(o.output_dir) / "runs" / "counters").string(), out.counter_failure);
  }
  if (o.pc_sampling) {
    progress.update("PC-sampling run");
    PcSamplingOptions po;
    po.argv = o.argv;
    po.run_dir = (fs::path(o.output_dir) / "runs" / "pc-sampling").string();
    po.platform = *platform::parse_kind(out.platform);
    po.timeout_s = o.timeout_s;
    po.debug = o.debug;
    try {
      out.pc_sampling = run_pc_sampling(po);
    } catch (const Error& e) {
      if (e.code() == ExitCode::Usage) throw;
      out.pc_sampling_failure = e.what();
      log::warn("the PC-sampling run failed, so there are no hotspots: {}; every other output is written (exit "
                "status {})",
                e.what(), static_cast<int>(ExitCode::ProfilerFailed));
    }
  }
  if (!o.timing_only) {
    progress.update("analysing the representative run");
    AnalyzeOptions ao;
    static_cast<AnalysisOptions&>(ao) = o.analysis;
    ao.databases = out.runs[out.representative_run].databases;
    ao.counter_failure = out.counter_failure;
    ao.node_rows = o.perfetto || o.trace_json;  // the JSON traces show each node's slack
    if (out.counters)
      for (const auto& att : out.counters->att) ao.external_deep.emplace_back(att.kernel, att.deep);
    out.analysis = run_analyze(ao);
    if (out.pc_sampling) out.analysis->pc_hotspots = out.pc_sampling->kernels;
    out.analysis->run_to_run = out.run_to_run;
  }
  progress.done();
  return out;
}

RankWrapperResult run_rank_wrapper(const ProfileOptions& o) {
  if (o.argv.empty()) throw Error(ExitCode::Usage, "no application given: rocm-perf profile --rank-wrapper -- APP");
  if (o.timing_only) throw Error(ExitCode::Usage, "--rank-wrapper records a trace: it cannot be combined with --no-rocprof");
  check_profile_options(o);  // the launcher form's usage checks (--kernel's pattern, --counter-launches, ...)
  check_rank_wrapper_options(o);
  // Everything that can refuse the request is checked before the application runs, as in the launcher form.
  const platform::Kind kind = o.platform ? *o.platform : platform::detect(kTraceAdvice);
  check_platform_support(o, kind, platform_support(kind));
  if (o.deep && kind == platform::Kind::Rocm)
    throw Error(ExitCode::Unsupported,
                "--deep cannot be honoured with --rank-wrapper on AMD: its thread-trace analysis is reported only in "
                "profile.json, which a rank does not write; profile the job through its launcher "
                "(rocm-perf profile --deep -- mpirun ...). Nothing was run");
  std::optional<analysis::CounterFile> counters;
  if (wants_counter_file(o)) counters = prepare_counter_file(o, kind);

  const RankIdentity id = rank_identity_from_env(std::getenv);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || !host[0]) std::snprintf(host, sizeof host, "localhost");
  const std::string label = id.known() ? fmt::format("rank-{}", id.rank) : fmt::format("{}-{}", host, getpid());
  if (!id.known())
    log::warn("--rank-wrapper: no launcher variable (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, ...) is set; "
              "this process is {}", label);
  RankWrapperResult out;
  out.run_dir = (fs::path(o.output_dir) / "ranks" / label).string();
  std::error_code ec;
  for (const fs::path& dir : {fs::path(out.run_dir), fs::path(o.output_dir) / "rank-counters" / label}) {
    fs::remove_all(dir, ec);  // only this rank's directories from an earlier run
    ec.clear();
  }
  fs::create_directories(out.run_dir, ec);
  if (ec) throw Error(ExitCode::OutputFailed, fmt::format("cannot create {}: {}", out.run_dir, ec.message()));
  auto collector = collectors::make_collector(kind);
  ProfileResults monitored;  // make_monitor / keep_device_samples fill it; only the rank's database keeps the samples
  auto monitor = make_monitor(o, kind, monitored);
  platform::CollectRequest req{o.argv, out.run_dir, o.debug, o.timeout_s, o.trace};
  if (monitor) monitor->start();
  platform::CollectResult c = collector->collect(req);
  std::vector<DeviceMetricSeries> samples = monitor ? monitor->stop() : std::vector<DeviceMetricSeries>{};
  out.databases = c.databases;
  out.process = c.process;
  if (monitor) {
    RunRecord run;
    run.index = 1;
    run.databases = out.databases;
    keep_device_samples(run, std::move(samples), monitored);
    out.device_samples = run.device_samples;
  }
  // The counter runs write databases of their own: outside ranks/, where `analyze DIR` reads the ranks.
  if (out.process.ok() && (o.roofline || o.deep || counters)) {
    // The counter pass starts the application a second time in this rank's slot. Under torchrun with more than one
    // rank that second start cannot meet its peers: on two H200s (2026-11-29) every rank's NCCL bootstrap dialled an
    // address nobody listened on, the pass failed after a minute of retries and torchrun stopped the job. The
    // launcher form runs the counter pass over the whole job instead (rocm-perf profile ... -- torchrun ...).
    const char* world = std::getenv("WORLD_SIZE");
    if (std::getenv("TORCHELASTIC_RESTART_COUNT") && world && std::atoi(world) > 1) {
      log::warn("--rank-wrapper under torchrun ({} ranks): the counter pass is skipped: it would start the application "
                "a second time in this rank's slot, and that start cannot rendezvous with the other ranks. The trace, "
                "NCCL's calls and the device samples are kept; for counters profile the job through its launcher: "
                "rocm-perf profile {}-- torchrun ...",
                world, o.roofline ? "--roofline " : counters ? "--preset ... " : "");
    } else {
      out.counters = counter_pass(o, counters, out.databases, out.process.wall_ns,
                                  (fs::path(o.output_dir) / "rank-counters" / label).string(), out.counter_failure);
    }
  }
  return out;
}

}  // namespace rpl::app
