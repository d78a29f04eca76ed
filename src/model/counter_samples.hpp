#pragma once
// Counter samples as every counter source hands them over, vendor-neutral: what one run of the application
// under a counter tool (ncu, the CUPTI range profiler, a rocprofv3 --pmc pass) measured, kernel instance by
// kernel instance. The drivers in collectors/ produce them; analysis/counter_pairing pairs them with the
// dispatches of the trace run (a separate run of the same command).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/trace.hpp"

namespace rpl {

// What an instance's kernel name is, which decides how it is looked up among the trace's kernels.
enum class CounterKernelNames {
  // The display name as the trace run's own tool writes it (rocprofv3 writes the same names in both
  // runs): the trace kernel with that display name, nothing else.
  DisplayName,
  // A profiler's own print of the name (ncu, and the CUPTI pass in ncu's layout): the mangled name, or a
  // demangled one in the profiler's format. Looked up by mangled name, then display name, then base name
  // (no return type or parameter list; an ambiguous base name matches nothing).
  MangledOrDemangled,
};

// What CounterInstance::process holds, which decides how the counter run's processes are identified
// with the trace run's.
enum class CounterProcesses {
  // The OS process id. Counted per process when every instance's pid is a process of the trace; else
  // across all processes.
  ById,
  // The process's rank in start order (start time, then pid; 0 first). Counted per process when both
  // runs have the same number of processes (the same command's processes start in the same order).
  ByStartOrder,
};

// One kernel launch of the counter run, in the run's launch order.
struct CounterInstance {
  std::string kernel;
  int64_t process = 0;                             // per CounterSamples::processes
  std::optional<std::array<uint64_t, 3>> grid;     // in work-items, as the trace's; nullopt: not reported
  std::optional<std::array<uint64_t, 3>> block;
  // False for a launch the tool recorded but did not count: it keeps its place in its kernel's launch
  // order and is not an instance of its own.
  bool measured = true;
  std::vector<std::pair<std::size_t, double>> values;  // (index into CounterSamples::counters, value)
};

struct CounterSamples {
  std::string tool;  // named in warnings: "ncu", "cupti", "rocprofv3"
  std::string run;   // which of the tool's application runs, named in warnings ("pmc pass 2"); empty: its only one
  CounterKernelNames kernel_names = CounterKernelNames::DisplayName;
  CounterProcesses processes = CounterProcesses::ById;
  std::size_t process_count = 0;           // ByStartOrder: how many processes the counter run had
  std::vector<std::string> counters;       // names, as the tool calls them (ncu metrics, rocprofv3 counters)
  std::vector<CounterInstance> instances;  // in launch order
  std::vector<std::string> warnings;       // what the importer found (unknown units, metrics not reported, ...)
};

// A trace's processes in the order CounterProcesses::ByStartOrder ranks them: start time, then pid.
std::vector<Index> processes_in_start_order(const Trace& trace);

}  // namespace rpl
