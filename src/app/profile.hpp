#pragma once
// The `profile` application: run the program N times (each run a separate process) under the platform's
// collector, keep every run's rocpd databases, compute statistics across runs, and analyse the
// representative (median-runtime) run in full. Timing-only mode runs the program without any profiler.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/analyze.hpp"
#include "analysis/device_power.hpp"
#include "app/pc_sampling.hpp"
#include "app/profile_counters.hpp"
#include "platform/platform.hpp"

namespace rpl::app {

struct ProfileOptions {
  std::vector<std::string> argv;
  unsigned runs = 5;
  bool runs_given = false;  // --runs was on the command line (--rank-wrapper refuses more than one)
  std::string output_dir = "rocm-perf-out";
  bool timing_only = false;                   // --no-rocprof
  std::optional<platform::Kind> platform;     // nullopt: detect
  AnalysisOptions analysis;                   // as in analyze, for the representative run
  // --roofline / --deep: a counter pass after the trace runs (app/profile_counters), its values stored in
  // the representative run's databases before they are analysed.
  bool roofline = false;
  bool deep = false;
  collectors::CounterTool counter_tool = collectors::CounterTool::Auto;  // NVIDIA: --counter-tool
  std::size_t counter_launches = 0;  // --counter-launches N: the CUPTI pass profiles the first N launches per kernel
  bool debug = false;
  bool show_progress = false;
  double timeout_s = 0;

  // --preset NAME (app/profile_presets): the preset applied to the settings below; "" without one.
  std::string preset;
  platform::TraceDomains trace;  // what each trace run records besides dispatches
  // --counters FILE: a counter file (analysis/counter_file) collected after the trace runs, checked against
  // the device's counters before anything runs. preset_counter_file: a preset's shipped file, resolved for
  // the device's architecture (used when counters_file is not given).
  std::optional<std::string> counters_file;
  std::string preset_counter_file;
  int counter_device = 0;  // the device whose counters the file is checked against
  bool perfetto = false;   // also write trace.perfetto.json of the representative run
  // also write trace.json: the representative run as trace events (Chrome / Perfetto JSON), the madengine
  // guide's lightweight JSON trace (--preset lightweight)
  bool trace_json = false;
  // --monitor-device / --sampling-interval MS: power, clocks, temperature and memory used sampled by a
  // thread of rocm-perf during every run (collectors/device_monitor.hpp), stored in each run's first
  // rocpd database and summarised per run in profile.json.
  bool monitor_device = false;
  unsigned sampling_interval_ms = 100;
  // --pc-sampling: a PC-sampling pass after the trace runs (app/pc_sampling.hpp).
  bool pc_sampling = false;
};

struct RunRecord {
  unsigned index = 0;  // 1-based
  std::string run_dir;
  ProcessResult process;
  std::vector<std::string> databases;
  std::string stdout_file, stderr_file;
  double runtime_ns = 0;  // trace mode: SUM of kernel time; timing-only: process wall time
  std::vector<analysis::DeviceMetricSummary> devices;  // --monitor-device: one per monitored device
  std::size_t device_samples = 0;                      // samples stored in the run's first database
};

struct KernelAcrossRuns {
  std::string name;
  analysis::DurationStats total_per_run;  // the kernel's total time in each run
};

struct ProfileResults {
  std::string mode;      // "trace" or "timing-only"
  std::string platform;  // "rocm", "cuda", or "none"
  std::string collector;
  std::vector<std::string> command;
  std::vector<RunRecord> runs;
  analysis::DurationStats runtime_across_runs;
  std::vector<KernelAcrossRuns> kernels_across_runs;  // by mean total, descending
  std::size_t representative_run = 0;                 // index into runs: the median runtime
  std::optional<CounterCollection> counters;          // --roofline / --deep
  std::optional<AnalyzeResults> analysis;             // of the representative run (trace mode)
  // The counter pass failed (not a usage error): every output the trace supports is still written, and
  // `profile` exits with ExitCode::CounterPassFailed.
  std::optional<std::string> counter_failure;
  nlohmann::json preset;  // null without --preset (app/profile_presets: preset_json)
  std::optional<PcSamplingResult> pc_sampling;        // --pc-sampling
  std::optional<std::string> pc_sampling_failure;     // the PC-sampling run failed: every other output stands
  std::string device_monitor;           // "nvml", "rocm-smi"; empty when not monitored
  unsigned sampling_interval_ms = 0;
  // --monitor-device: the busiest device's utilisation (%) in the sample before the first run's application
  // started (analysis/run_stability: another process on the GPU).
  std::optional<double> utilization_before_first_run_pct;
  analysis::RunToRun run_to_run;  // stability across the runs and device-state warnings
};

ProfileResults run_profile(const ProfileOptions& options);

// `profile --rank-wrapper`: one rank of a distributed job started by the cluster's launcher
// (`srun rocm-perf profile --rank-wrapper -o DIR -- ./app`): the application runs once under the collector,
// its database goes to DIR/ranks/rank-<R>/ (R from RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID, ...; else
// <host>-<pid>), and nothing is analysed: `rocm-perf analyze DIR` does that over all ranks afterwards.
// The options are those of the launcher form: the preset's trace settings, the platform check,
// --monitor-device (samples in the rank's database), --roofline / --counters / a preset's counter file (the
// rank runs its counter passes after the trace run, in DIR/rank-counters/rank-<R>/, values stored in the
// rank's database). What a rank cannot do is refused with exit 17 before anything runs: --runs above 1,
// --pc-sampling, --deep on AMD (the CLI also refuses the analysis-only options: cli/profile_command.cpp).
struct RankWrapperResult {
  std::string run_dir;
  std::vector<std::string> databases;
  ProcessResult process;
  std::size_t device_samples = 0;                 // --monitor-device: samples stored in the rank's database
  std::optional<CounterCollection> counters;      // the counter pass, when asked for and it succeeded
  std::optional<std::string> counter_failure;     // the counter pass failed: the trace stands (exit 16)
};
RankWrapperResult run_rank_wrapper(const ProfileOptions& options);

}  // namespace rpl::app
