#pragma once
// The steady-state window an analysis measures. A traced process spends seconds starting up (Python
// imports, library initialisation, warm-up) before its first kernel and after its last; measuring the
// GPU's idle time over all of it says nothing about the workload. By default the window is the first to
// the last kernel; with a range name it is the work the application launched inside its NVTX / ROCTx
// ranges of that name (rocpd regions of a MARKER category, as rocprofv3 stores ROCTx ranges and our CUPTI
// collector stores NVTX ranges).
#include <optional>
#include <string>

#include "model/trace.hpp"

namespace rpl::analysis {

enum class WindowSource { FirstToLastKernel, Range, WholeTrace };
const char* to_string(WindowSource s);  // "first_to_last_kernel", "range", "whole_trace"

struct AnalysisWindow {
  WindowSource source = WindowSource::WholeTrace;
  std::string requested_range;      // --range NAME; empty when none was asked for
  std::size_t range_instances = 0;  // ranges of that name found (0: fell back to first to last kernel)
  TimeNs start = 0, end = 0;        // the window on the trace clock
  std::size_t dropped_dispatches = 0, dropped_copies = 0;
  std::string description;          // one line for people: which window and why
};

// True for an API call that is a marker range (its category names a MARKER domain).
bool is_marker_range(const Trace& trace, const ApiCall& call);
// The key under which a dispatch or copy finds its launching API call: (process, correlation id).
uint64_t launch_key(Index process, int64_t correlation);

// Restricts `trace` in place to the window: dispatches and copies outside it are removed (counter samples
// are re-indexed, those of removed dispatches dropped); host API calls and synchronisation records stay
// (they only connect work that remains). With a range name, a dispatch or copy is inside when
// its launching API call (same correlation id and process) starts inside one of the ranges, or, without a
// recorded launch call, when it starts between the first range's start and the last range's end; the
// window then runs from the first range's start to the end of the last work inside. When no range of that
// name exists the window falls back to the first to the last kernel and the description says so.
AnalysisWindow restrict_to_window(Trace& trace, const std::optional<std::string>& range_name);

}  // namespace rpl::analysis
