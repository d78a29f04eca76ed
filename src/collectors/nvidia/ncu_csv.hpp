#pragma once
// Nsight Compute (ncu) results as CSV: the parser, the import of its metrics as counter samples, and the ncu
// command line that produces them. No NVIDIA SDK is needed; ncu is an ordinary program.
//
// Formats (both as written by ncu 2025.3.1, checked on an H100):
// - `--csv --page raw`: a header row ("ID","Process ID","Process Name","Host Name","Kernel Name",
//   "Context","Stream","Block Size","Grid Size","Device","CC", then one column per metric), a units row
//   (empty under the leading columns), then one row per profiled kernel instance.
// - `--csv` (the default "details" page): one row per metric with the columns above plus "Section Name",
//   "Metric Name", "Metric Unit", "Metric Value"; an instance's rows share its "ID".
// Values carry thousands separators ("67,113,472"); units may be scaled ("Mbyte", "us", "Kbyte",
// "usecond"); both are normalised to base units: bytes, ns, bytes/s, Hz, percent, counts. ncu's byte
// prefixes are decimal (67,114,496 byte printed as 67.11 Mbyte). Lines that are not part of the table
// (==PROF== messages, the application's own output) are skipped.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/counter_samples.hpp"

namespace rpl::collectors {

struct NcuKernel {
  int64_t id = -1;           // ncu's "ID": the profiled-kernel index, in launch order
  int64_t process_id = 0;
  std::string process_name;
  std::string kernel_name;   // as ncu printed it (see --print-kernel-base)
  std::string block_size;    // "(256, 1, 1)"
  std::string grid_size;     // "(65536, 1, 1)": blocks, not threads
  std::string device;
  std::string compute_capability;  // "9.0"
  std::vector<double> values;      // per NcuReport::metric_names; NaN = not reported for this instance
};

struct NcuReport {
  std::vector<std::string> metric_names;
  std::vector<std::string> metric_units;  // normalised: "byte", "ns", "byte/second", "hz", "%", or as printed
  std::vector<NcuKernel> kernels;         // in ID order as they appear
  std::vector<std::string> warnings;

  int metric_index(std::string_view name) const;  // -1 if absent
  std::optional<double> value(const NcuKernel& k, std::string_view metric) const;
};

// A number as ncu prints it: thousands separators removed; nullopt for "n/a", "", and non-numbers.
std::optional<double> parse_ncu_number(std::string_view text);
// Scale factor to the base unit and the base unit's name ("Mbyte" -> {1e6, "byte"}, "us" -> {1e3, "ns"});
// nullopt for a unit we do not know (the value is then kept as printed, with a warning).
struct UnitScale {
  double factor = 1;
  std::string base;
};
std::optional<UnitScale> normalize_ncu_unit(std::string_view unit);

// Parses either form (detected from the header). Throws rpl::Error(InputInvalid) naming `source` when no
// ncu CSV header is found or a required column is missing.
NcuReport parse_ncu_csv(std::string_view text, const std::string& source);
NcuReport read_ncu_csv(const std::string& path);  // + Error(InputMissing) when unreadable

// The report as vendor-neutral counter samples (model/counter_samples.hpp), for
// analysis::pair_counter_samples: instances in ncu ID order (launch order), kernel names as ncu printed them
// (CounterKernelNames::MangledOrDemangled), processes by pid, grid and block in work-items (ncu's grid is in
// blocks; unparseable sizes are not compared). `metrics`: the metrics to take; empty = every numeric metric
// except static device/link attributes (device__attribute_*, nvlink__*, numa__*, c2clink__*, profiler__*).
// A wanted metric the report lacks is a warning; "n/a" values are left out. `tool` is named in the
// warnings: "ncu", or "cupti" for the in-process pass's CSV in ncu's layout.
CounterSamples ncu_counter_samples(const NcuReport& report, const std::vector<std::string>& metrics = {},
                                   const std::string& tool = "ncu");

// The ncu command line (argv, no shell). Choices, each overridable:
// - --csv --page raw --print-units base: one row per kernel instance, unscaled values.
// - --print-kernel-base mangled: exact names to match against the trace's mangled names.
// - --clock-control none: kernels run at the clocks they get in production, which is what the table's
//   peaks (boost clocks) and the trace's timings assume; "base" locks the SMs to base clock and makes
//   every kernel look slower against boost-clock roofs (ncu warns that unlocked results vary more).
// - --cache-control all: caches flushed before every replay pass, so the passes of one kernel see the
//   same cold state and their counters combine; a kernel whose data lives in L2 in production shows more
//   DRAM traffic than it would there.
// - --replay-mode kernel: only the profiled kernel is replayed (application replay re-runs the program
//   once per pass).
// - --target-processes all: child processes (launchers, workers) are profiled too.
// - --log-file: ncu's own output (the CSV included) goes to that file, not into the application's stdout.
struct NcuCommandOptions {
  std::string ncu = "ncu";
  std::vector<std::string> metrics;       // --metrics a,b,c (required)
  std::string kernel_regex;               // --kernel-name regex:<re>; empty = every kernel
  // --kernel-name-base: which name the regex is matched against ("function", "demangled", "mangled").
  // "demangled" is the full signature, the name rocm-perf's --kernel matches.
  std::string kernel_name_base = "function";
  std::optional<int64_t> launch_count;    // --launch-count: profile at most this many launches
  std::string clock_control = "none";     // "none" | "base"
  std::string cache_control = "all";      // "all" | "none"
  std::string replay_mode = "kernel";     // "kernel" | "application"
  std::string log_file;                   // --log-file; empty = stdout
  std::vector<std::string> application;   // argv of the profiled program (required)
};
// Throws rpl::Error(Usage) for an empty metric list or application, or an invalid choice.
std::vector<std::string> ncu_command_line(const NcuCommandOptions& options);

}  // namespace rpl::collectors
