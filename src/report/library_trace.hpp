#pragma once
// The madengine guide's library_trace.csv ("Library API calls (if library tracing enabled)") and its summary
// library_calls.json (schemas/library-calls.schema.json): the calls analysis/library_calls finds in a trace.
//
//   library_trace.csv  "Library","Function","Process_Id","Thread_Id","Start_Timestamp","End_Timestamp",
//                      "Duration_ns","GPU_Kernels","GPU_Copies","GPU_Busy_ns","Range_Name","Link","Arguments"
//   (Link: how the call's GPU work was found, analysis::CallLink; Arguments: a logged call's key arguments)
//
// Written as rocprofv3 writes its CSV files: every header and string value in double quotes, numbers bare,
// one row per call in start order.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/library_calls.hpp"
#include "analysis/logged_library_calls.hpp"
#include "model/library_call_counts.hpp"
#include "model/logged_library_calls.hpp"
#include "model/trace.hpp"

namespace rpl::report {

extern const char* const kLibraryTraceHeader;

// One CSV row (with its newline) of `call`, a call of `trace`.
std::string library_trace_row(const Trace& trace, const analysis::LibraryCall& call);
// Writes library_trace.csv (header and rows) atomically; throws rpl::Error(OutputFailed).
void write_library_trace_csv(const std::string& path, const Trace& trace, const std::vector<analysis::LibraryCall>& calls);
// library_calls.json: the calls by library and function. `source` says where they came from (the markers
// of which platform).
// `counted`: calls known only by their count (rocBLAS's profile log), listed as "counted_calls" (no times, not in
// library_trace.csv).
// `without`: libraries whose kernels ran although none of their calls was found, listed as
// "kernels_without_calls" (the reason library_trace.csv lacks them: the library marked no call).
// `logged`: how the calls from the libraries' API logs were linked, listed as "logged_calls".
struct LoggedCallsSummary {
  analysis::LoggedCallLinks links;
  std::vector<std::string> logs;        // the log files read
  std::vector<std::string> superseded;  // libraries whose logged calls were dropped: marker ranges hold their calls
};
nlohmann::json library_calls_document(const std::vector<analysis::LibraryCall>& calls, const std::string& source,
                                      const std::vector<LibraryCallCount>& counted = {},
                                      const std::vector<analysis::LibraryKernelsWithoutCalls>& without = {},
                                      const LoggedCallsSummary* logged = nullptr);

// The trace's marker-range calls and the logged calls (analysis::logged_library_calls) of every library that has no
// marker range in the trace, by start.
std::vector<analysis::LibraryCall> library_calls_with_logged(const Trace& trace, const std::vector<LoggedLibraryCall>& logged,
                                                           LoggedCallsSummary* summary = nullptr);

struct LibraryOutputs {
  std::size_t calls = 0;  // calls (rows of library_trace.csv)
  std::vector<analysis::LibraryKernelsWithoutCalls> kernels_without_calls;
  std::optional<LoggedCallsSummary> logged;
};
// Both files into `dir` (which exists). `logged`: the calls of the libraries' API logs (NVIDIA), or nullptr.
// Throws rpl::Error(OutputFailed).
LibraryOutputs write_library_outputs(const std::string& dir, const Trace& trace, const std::string& source,
                                     const std::vector<LibraryCallCount>& counted = {},
                                     const std::vector<LoggedLibraryCall>* logged = nullptr);

}  // namespace rpl::report
