#pragma once
// `profile --roofline` / `--deep`: after the trace runs, one counter pass with the vendor's profiler (a
// driver in collectors/counter_pass, which returns vendor-neutral counter samples), its samples paired with
// the representative trace run's dispatches (analysis/counter_pairing: one rule for every source), and
// stored in that run's rocpd databases as pmc rows (rocpd_info_pmc / rocpd_pmc_event), where `analyze` reads
// them to compute the roofline, the deep analysis and the bottleneck labels. Orchestration only: which
// source, which counters, where the values go. This file never writes an analysis output itself.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "analysis/counter_file.hpp"
#include "analysis/deep_analysis.hpp"
#include "collectors/counter_pass.hpp"
#include "model/counter_samples.hpp"
#include "model/trace.hpp"
#include "store/rocpd_counters_append.hpp"

namespace rpl::app {

struct CounterCollectionOptions {
  bool roofline = false;  // the roofline counters (NVIDIA: plus the deep set, which the classifier reads)
  bool deep = false;      // NVIDIA: the deep-analysis metrics; AMD: also a rocprofv3 --att run
  std::size_t launches_per_kernel = 0;  // --counter-launches (CUPTI pass only); 0: every launch
  collectors::CounterTool counter_tool = collectors::CounterTool::Auto;  // NVIDIA
  std::vector<std::string> argv;
  std::string run_dir;                       // the counter runs' folder
  std::optional<std::string> kernel_filter;  // profile --kernel REGEX (matched on the demangled name)
  double timeout_s = 0;
  bool debug = false;
  bool lenient = false;  // --lenient: read the traces dropping invalid records, as analyze does
  // --counters FILE (or a preset's shipped file), already checked against the device: its own pass (AMD: one
  // application run per planned pmc line; NVIDIA: one run, the tool replaying each kernel per hardware pass).
  std::optional<analysis::CounterFile> counter_file;
};

// Counter values for one database (one process of the trace run).
struct DatabaseCounterValues {
  std::string database;
  std::string guid;
  std::vector<rocpd::CounterValue> values;
};

struct CounterMatch {
  std::vector<DatabaseCounterValues> databases;
  std::size_t instances = 0;            // kernel instances that carried counter values
  std::size_t matched = 0;              // of those, paired with a trace dispatch
  std::size_t values = 0;               // values to store
  std::vector<std::string> warnings;    // every reason an instance was not paired, or paired doubtfully
};

// One counter run's samples paired with `trace`'s dispatches (analysis::pair_counter_samples), the values
// grouped by the database (the trace run's process) that stores them.
CounterMatch match_counter_samples(const Trace& trace, const CounterSamples& samples);

struct AttDispatchDeep {
  int64_t dispatch_id = 0;
  std::string kernel;
  analysis::DeepAnalysis deep;
};

// One counter of the counter file, summed over a kernel's measured instances.
struct KernelCounterTotal {
  std::string kernel;
  std::string counter;
  std::size_t instances = 0;
  double sum = 0;
};

struct CounterCollection {
  std::string vendor;                            // "nvidia" or "amd"
  std::string tool;                              // "cupti", "ncu" or "rocprofv3"
  std::string arch;                              // of the profiled GPU agent
  std::vector<std::string> requested;            // "roofline", "deep"
  std::size_t launches_per_kernel = 0;           // --counter-launches; 0: every launch was profiled
  std::vector<std::vector<std::string>> passes;  // AMD: counters per pmc pass; NVIDIA: one list (ncu groups)
  std::vector<std::string> commands;             // each tool run, joined
  std::string run_dir;
  std::size_t application_runs = 0;              // how many times the counter passes ran the application
  std::size_t instances = 0;
  std::size_t matched = 0;
  std::size_t values_stored = 0;
  std::vector<std::string> databases;            // the trace databases the values were added to
  double wall_ns = 0;                            // all counter runs together
  double baseline_wall_ns = 0;                   // one trace run of the same command (the representative)
  std::vector<std::string> warnings;
  std::vector<AttDispatchDeep> att;              // AMD --deep
  std::string att_diagnosis;                     // AMD --deep with nothing decoded: why
  std::string counter_file;                      // --counters FILE / the preset's file, "" without
  std::vector<KernelCounterTotal> file_totals;   // the counter file's values per kernel (kernel, then counter order)

  // Cost per profiled kernel instance: all counter-run time / instances, and the part above running the
  // application that many times without counters.
  std::optional<double> ms_per_instance() const;
  std::optional<double> extra_ms_per_instance() const;
};

// Runs the passes the options ask for against the application, stores the matched values in
// `trace_databases` (the representative trace run's), and says what it did. Throws rpl::Error as the
// counter passes and the store do.
CounterCollection collect_counters(const CounterCollectionOptions& options,
                                   const std::vector<std::string>& trace_databases, double baseline_wall_ns);

nlohmann::json to_json(const CounterCollection& c);  // profile.json "counters"

}  // namespace rpl::app
