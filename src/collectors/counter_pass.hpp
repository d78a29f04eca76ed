#pragma once
// Counter passes: after the trace runs, the vendor's profiler runs the application once more to collect the
// hardware counters the roofline and the deep analysis need. One driver per counter source; each runs its
// tool, imports what the tool wrote and hands back a CounterPassRun: what it ran and the vendor-neutral
// counter samples it measured (model/counter_samples.hpp), which analysis::pair_counter_samples pairs with
// the trace's dispatches for every source alike.
// - NVIDIA: one ncu run with the metric list (ncu itself replays each profiled kernel once per metric pass),
//   the CSV parsed by ncu_csv; or the CUPTI range profiler in the application's own process, writing the same
//   CSV layout.
// - AMD: one rocprofv3 run with an -i input file of "pmc:" lines (one application run per line, databases
//   under pmc_<N>/, imported by amd/pmc_import), and a separate rocprofv3 --att run for the deep analysis,
//   whose per-dispatch folders amd/att_import reads (thread traces, not counter samples).
// Neither tool's own output is mixed into ours: each run's stdout and log are files under the run folder.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "collectors/amd/att_import.hpp"
#include "collectors/nvidia/ncu_csv.hpp"
#include "model/counter_samples.hpp"
#include "support/process.hpp"

namespace rpl::collectors {

// The NVIDIA counter pass's tool (--counter-tool), parsed once at the command line: ncu, the in-process
// CUPTI range profiler, or auto (ncu where installed, else cupti; resolved when the pass runs).
enum class CounterTool { Auto, Ncu, Cupti };
// "auto" | "ncu" | "cupti"; throws rpl::Error(Usage) naming the value otherwise.
CounterTool parse_counter_tool(const std::string& name);
const char* to_string(CounterTool tool);

struct CounterPassRequest {
  std::vector<std::string> argv;  // the application and its arguments
  std::string run_dir;            // created if missing; every output goes under it
  std::string kernel_regex;       // profile only kernels whose demangled name matches; empty: all
  double timeout_s = 0;           // for the whole pass; 0: none
  bool debug = false;             // the tool's own log goes to our stderr
  std::size_t launches_per_kernel = 0;  // the CUPTI pass only: profile the first N launches of each kernel; 0: all
  bool lenient = false;           // rocprofv3 passes: read their databases dropping invalid records
};

struct CounterPassRun {
  std::string tool;                  // "ncu", "cupti" or "rocprofv3"
  std::vector<std::string> command;  // argv as run
  ProcessResult process;
  std::string stdout_file;           // the application's stdout
  std::string log_file;              // the tool's log (ncu: also its CSV)
  std::size_t application_runs = 1;  // how many times the tool ran the application
  // What it measured: one set per application run that counted (rocprofv3: one per pmc pass); empty for
  // the ATT run.
  std::vector<CounterSamples> samples;
};

// ---- NVIDIA ----

// $RPL_NCU, else ncu on PATH, else the CUDA toolkit's (/usr/local/cuda/bin/ncu). Throws
// rpl::Error(ProfilerFailed) when none exists.
std::string find_ncu();

struct NcuPass : CounterPassRun {
  NcuReport report;  // as read; `samples` holds the requested metrics of it (ncu_counter_samples)
};
// The counter pass in the application's own process (librpl_cupti_counters.so through
// CUDA_INJECTION64_PATH: CUPTI's range profiler, one range per launch, kernel replay). It writes one
// ncu-format CSV per process (counters-<pid>.csv), read here with the ncu parser and merged, so the values
// are paired with the trace exactly as ncu's are. `tool` is "cupti"; `log_file` is the application's
// stderr, where the library reports. A metric CUPTI cannot collect is "n/a" in every row and named in the
// report's warnings. Throws rpl::Error(ProfilerFailed) when the library is missing or wrote no CSV,
// (ApplicationFailed) when the application failed.
std::optional<std::string> find_cupti_counters_library();  // RPL_CUPTI_COUNTERS, else next to rocm-perf
NcuPass run_cupti_counter_pass(const CounterPassRequest& request, const std::vector<std::string>& metrics);
// Runs `ncu ... --metrics <metrics> APP` (ncu_command_line: kernel replay, caches flushed per pass, clocks
// unlocked, CSV to the log file). Throws rpl::Error(ProfilerFailed) with the log's tail when ncu fails or its
// log holds no CSV table, (ApplicationFailed) when ncu ran but the application failed.
NcuPass run_ncu_pass(const CounterPassRequest& request, const std::vector<std::string>& metrics);
// The metrics ncu's log says it cannot access on this GPU ("==ERROR== Unable to access the following N
// metrics: a, b."): the pass runs once more without them, and the report's warnings name them.
std::vector<std::string> ncu_unavailable_metrics(const std::string& log);

// ---- AMD ----

struct RocprofPmcPass : CounterPassRun {
  std::string input_file;                               // the -i file written for this pass
  std::vector<std::vector<std::string>> pass_databases; // [pass - 1]: the databases under pmc_<pass>/
};
// Writes `pmc_input` (analysis::rocprofv3_pmc_input: comment lines and one "pmc:" line per pass) to
// run_dir/counters.txt and runs `rocprofv3 -i counters.txt --kernel-trace --output-format rocpd -d DIR
// [--kernel-include-regex RE] -- APP`. Throws rpl::Error(ProfilerFailed) when rocprofv3 is missing, fails, or
// a pass wrote no database; (ApplicationFailed) when the application failed. `samples`: each pass's
// databases read and imported (pmc_counter_samples, named "pmc pass <N>").
RocprofPmcPass run_rocprof_pmc_pass(const CounterPassRequest& request, const std::string& pmc_input);

struct RocprofAttPass : CounterPassRun {
  std::string output_dir;
  std::vector<std::string> databases;                   // the run's own trace (dispatch ids -> kernel names)
  std::vector<AttDispatchOutput> outputs;               // decoded per-dispatch folders, `kernel` named from `databases`
  std::string diagnosis;                                // why `outputs` is empty (diagnose_att_root)
  std::vector<std::string> warnings;                    // the run's trace unreadable, nothing decoded
};
// `rocprofv3 --att --kernel-trace --output-format rocpd -d DIR [--kernel-include-regex RE] -- APP`: thread
// trace of the first dispatch of each matching kernel. An empty result is not an error (the diagnosis says
// why); a failing tool or application is. Each output's documents are read with read_att_dispatch.
RocprofAttPass run_rocprof_att_pass(const CounterPassRequest& request);

}  // namespace rpl::collectors
