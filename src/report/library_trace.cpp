#include "report/library_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <set>
#include <tuple>

#include "rpl/version.hpp"
#include "support/atomic_file.hpp"

namespace rpl::report {

const char* const kLibraryTraceHeader =
    R"("Library","Function","Process_Id","Thread_Id","Start_Timestamp","End_Timestamp","Duration_ns","GPU_Kernels",)"
    R"("GPU_Copies","GPU_Busy_ns","Range_Name","Link","Arguments")";

namespace {

std::string quoted_field(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');  // RFC 4180; a marker's text may hold a quote
    if (c != '\n' && c != '\r') out.push_back(c);  // a record never spans lines
  }
  return out + "\"";
}

}  // namespace

std::string library_trace_row(const Trace& trace, const analysis::LibraryCall& c) {
  const int64_t pid = c.process < trace.processes.size() ? trace.processes[c.process].pid : c.pid;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quoted_field(c.call.library),
                     quoted_field(c.call.function), pid, c.thread, c.start, c.end, c.end - c.start, c.gpu_kernels,
                     c.gpu_copies, c.gpu_busy_ns, quoted_field(c.range_name), quoted_field(analysis::to_string(c.link)),
                     quoted_field(c.arguments));
}

void write_library_trace_csv(const std::string& path, const Trace& trace, const std::vector<analysis::LibraryCall>& calls) {
  write_file_atomically(path, [&](std::FILE* f) {
    std::fprintf(f, "%s\n", kLibraryTraceHeader);
    for (const analysis::LibraryCall& c : calls) {
      const std::string row = library_trace_row(trace, c);
      std::fwrite(row.data(), 1, row.size(), f);
    }
  });
}

nlohmann::json library_calls_document(const std::vector<analysis::LibraryCall>& calls, const std::string& source,
                                      const std::vector<LibraryCallCount>& counted,
                                      const std::vector<analysis::LibraryKernelsWithoutCalls>& without,
                                      const LoggedCallsSummary* logged) {
  nlohmann::json functions = nlohmann::json::array();
  std::set<std::string> libraries;
  for (const analysis::LibraryFunctionSummary& s : analysis::library_summary(calls)) {
    libraries.insert(s.call.library);
    functions.push_back({{"library", s.call.library},
                         {"function", s.call.function},
                         {"calls", s.calls},
                         {"total_ns", s.total_ns},
                         {"mean_ns", s.calls ? static_cast<double>(s.total_ns) / static_cast<double>(s.calls) : 0.0},
                         {"min_ns", s.min_ns},
                         {"max_ns", s.max_ns},
                         {"gpu_kernels", s.gpu_kernels},
                         {"gpu_copies", s.gpu_copies},
                         {"gpu_busy_ns", s.gpu_busy_ns}});
  }
  nlohmann::json doc = {{"schema_version", "1.3"},
                        {"tool", {{"name", "rocm-perf"}, {"version", kVersion}}},
                        {"source", source},
                        {"calls", calls.size()},
                        {"libraries", libraries},
                        {"functions", functions}};
  if (!counted.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const LibraryCallCount& c : counted)
      rows.push_back({{"library", c.library}, {"function", c.function}, {"arguments", c.arguments}, {"calls", c.calls}});
    doc["counted_calls"] = rows;
  }
  if (logged) {
    const analysis::LoggedCallLinks& l = logged->links;
    doc["logged_calls"] = {{"logs", logged->logs},
                           {"calls", l.calls},
                           {"set_up_calls", l.set_up},
                           {"linked_by_time_window", l.time_window},
                           {"linked_by_order", l.order},
                           {"ambiguous", l.ambiguous},
                           {"no_kernels_in_window", l.no_kernels},
                           {"not_in_trace", l.not_in_trace},
                           {"untimed", l.untimed},
                           {"linked_kernels", l.linked_kernels},
                           {"libraries_with_marker_ranges", logged->superseded}};
  }
  if (!without.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const analysis::LibraryKernelsWithoutCalls& k : without)
      rows.push_back({{"library", k.library}, {"dispatches", k.dispatches}, {"kernels", k.kernels}, {"example", k.example}});
    doc["kernels_without_calls"] = rows;
  }
  return doc;
}

std::vector<analysis::LibraryCall> library_calls_with_logged(const Trace& trace, const std::vector<LoggedLibraryCall>& logged,
                                                           LoggedCallsSummary* summary) {
  std::vector<analysis::LibraryCall> calls = analysis::library_calls(trace);
  // A library whose calls the trace's marker ranges hold already: its logged calls would list them twice.
  std::set<std::string> marked, logs;
  for (const analysis::LibraryCall& c : calls) marked.insert(c.call.library);
  std::vector<LoggedLibraryCall> kept;
  std::set<std::string> superseded;
  for (const LoggedLibraryCall& l : logged) {
    logs.insert(l.log_file);
    if (marked.count(l.library)) superseded.insert(l.library);
    else kept.push_back(l);
  }
  analysis::LoggedCallLinks links;
  std::vector<analysis::LibraryCall> from_logs = analysis::logged_library_calls(trace, kept, &links);
  calls.insert(calls.end(), std::make_move_iterator(from_logs.begin()), std::make_move_iterator(from_logs.end()));
  std::stable_sort(calls.begin(), calls.end(), [](const analysis::LibraryCall& a, const analysis::LibraryCall& b) {
    return std::tie(a.start, a.process, a.thread) < std::tie(b.start, b.process, b.thread);
  });
  if (summary) {
    summary->links = links;
    summary->logs.assign(logs.begin(), logs.end());
    summary->superseded.assign(superseded.begin(), superseded.end());
  }
  return calls;
}

LibraryOutputs write_library_outputs(const std::string& dir, const Trace& trace, const std::string& source,
                                     const std::vector<LibraryCallCount>& counted,
                                     const std::vector<LoggedLibraryCall>* logged) {
  LoggedCallsSummary summary;
  const std::vector<analysis::LibraryCall> calls =
      logged ? library_calls_with_logged(trace, *logged, &summary) : analysis::library_calls(trace);
  LibraryOutputs out{calls.size(), analysis::library_kernels_without_calls(trace, calls)};
  if (logged) out.logged = summary;
  write_library_trace_csv((std::filesystem::path(dir) / "library_trace.csv").string(), trace, calls);
  const std::string doc =
      library_calls_document(calls, source, counted, out.kernels_without_calls, logged ? &summary : nullptr).dump(2) + "\n";
  write_file_atomically((std::filesystem::path(dir) / "library_calls.json").string(),
                        [&](std::FILE* f) { std::fwrite(doc.data(), 1, doc.size(), f); });
  return out;
}

}  // namespace rpl::report
