#pragma once
// Reading rocpd databases into the trace model, with progress on a terminal: what `analyze` starts with
// and all the `export` formats read (they export the whole trace, no analysis window).
#include <string>
#include <vector>

#include "model/library_call_counts.hpp"
#include "model/logged_library_calls.hpp"
#include "model/scratch_memory.hpp"
#include "model/trace.hpp"

namespace rpl::app {

struct LoadOptions {
  std::vector<std::string> databases;
  bool lenient = false;        // drop invalid records with a warning instead of failing
  bool show_progress = false;  // progress on stderr (a terminal, not --quiet)
  unsigned jobs = 1;           // databases read at once (rocpd::ReadOptions::jobs)
};

// Throws rpl::Error (missing, corrupt, not rocpd, empty, invalid: support/errors.hpp). Warns on stderr when the
// databases look like unrelated runs (unrelated_runs_warnings).
Trace load_trace(const LoadOptions& options);

// Why several processes in one trace may not be one run: they come from several hosts (clocks not comparable),
// or their GPU work does not overlap in time (runs one after the other). Empty for one process.
std::vector<std::string> unrelated_runs_warnings(const Trace& trace);

// The scratch-memory operations (rocprofv3 --scratch-memory-trace) of the databases, by start; none when they
// hold no rocpd_memory_allocate rows of level SCRATCH. Throws rpl::Error as load_trace for a bad file.
std::vector<ScratchOperation> load_scratch_memory(const std::vector<std::string>& databases);

// The rocBLAS calls of a run, counted by rocBLAS's profile log (`profile --library-trace` on AMD asks for it in
// the run's folder: RUN_DIR/rocblas_profile.log); none when there is no log. Throws rpl::Error for a bad log.
std::vector<LibraryCallCount> load_library_call_counts(const std::string& run_dir);

// The cuBLAS, cuBLASLt and cuDNN calls of a run from the libraries' API logs (`profile --library-trace` on NVIDIA
// asks for them in RUN_DIR/library_logs/), on the trace's clock; none when there are no logs. Throws rpl::Error for
// a bad log.
std::vector<LoggedLibraryCall> load_logged_library_calls(const std::string& run_dir);
// The same from a folder of such logs (RUN_DIR/library_logs/ itself, wherever it was moved).
std::vector<LoggedLibraryCall> load_library_log_folder(const std::string& logs_dir);

// The library_logs/ folders that belong to `databases`, for analyses of a trace after the run (`export csv`): the
// nearest of a database's folder and the two above it that holds one (profile's layout,
// RUN/rocpd/HOST/PID_results.db beside RUN/library_logs/). Each folder once, in the databases' order.
std::vector<std::string> library_log_folders(const std::vector<std::string>& databases);

}  // namespace rpl::app
