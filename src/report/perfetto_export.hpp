#pragma once
// `rocm-perf export perfetto`: the trace as Chrome/Perfetto JSON trace events, loadable in ui.perfetto.dev
// and chrome://tracing.
//
// Layout: a process track per profiled process, with one thread track per stream (see work_lanes.hpp)
// holding its dispatches and copies as complete ("X") slices; flow arrows ("s"/"f") for the recorded
// cross-stream dependencies (analysis/dag_edges.hpp); and a separate "Critical path" process whose track
// repeats the path's nodes in time order. Slices on the path carry args.critical_path = true, and flows
// the path follows are named "... (critical path)". Device metrics sampled during the run (--monitor-device,
// Trace::device_metrics) become one process per device with a counter track ("C" events) per metric.
//
// Timestamps are microseconds since the trace's first GPU start (otherData.trace_start_ns gives the
// absolute CLOCK_BOOTTIME origin), written with 3 decimals so nanoseconds survive exactly; relative times
// keep the numbers small enough that a double-based JSON reader loses nothing.
//
// Output is streamed (JsonStream): memory is a few arrays of 4 bytes per node, whatever the trace size.
#include <cstdint>
#include <cstdio>
#include <string>

#include "app/analyze.hpp"
#include "report/json_stream.hpp"

namespace rpl::report {

// The critical-path position of a dispatch or copy that is not on the path.
inline constexpr int32_t kNotOnPath = -1;

struct PerfettoOptions {
  bool flows = true;                // arrows for the recorded cross-stream dependencies
  bool critical_path_track = true;  // the separate "Critical path" process track
};

void write_perfetto_trace(JsonStream& out, const app::AnalyzeResults& r, const PerfettoOptions& options = {});

// Writes `path` atomically (temporary name, then rename); throws rpl::Error(OutputFailed).
void write_perfetto_file(const std::string& path, const app::AnalyzeResults& r, const PerfettoOptions& options = {});

// The same tracks, slices, flows and critical path as Perfetto's protobuf trace (perfetto_pftrace.cpp),
// streamed packet by packet: for traces too large for the JSON format.
void write_pftrace(std::FILE* f, const app::AnalyzeResults& r, const PerfettoOptions& options = {});
void write_pftrace_file(const std::string& path, const app::AnalyzeResults& r, const PerfettoOptions& options = {});

}  // namespace rpl::report
