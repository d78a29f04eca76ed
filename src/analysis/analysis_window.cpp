// The analysis window; see analysis_window.hpp.
#include "analysis/analysis_window.hpp"
#include "analysis/time_interval.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace rpl::analysis {

const char* to_string(WindowSource s) {
  switch (s) {
    case WindowSource::FirstToLastKernel: return "first_to_last_kernel";
    case WindowSource::Range: return "range";
    case WindowSource::WholeTrace: return "whole_trace";
  }
  return "unknown";
}

uint64_t launch_key(Index process, int64_t correlation) {
  return (static_cast<uint64_t>(process) << 40) ^ static_cast<uint64_t>(correlation);
}

bool is_marker_range(const Trace& trace, const ApiCall& call) {
  return call.category < trace.strings.size() && trace.strings.at(call.category).find("MARKER") != std::string::npos;
}

namespace {

// Start of the launching API call of each (process, correlation id): the earliest call with that id (a
// runtime call encloses the driver call it makes).
std::unordered_map<uint64_t, TimeNs> launch_starts(const Trace& trace) {
  std::unordered_map<uint64_t, TimeNs> out;
  for (const ApiCall& a : trace.api_calls) {
    if (a.correlation_id == 0 || is_marker_range(trace, a)) continue;
    auto [it, inserted] = out.try_emplace(launch_key(a.process, a.correlation_id), a.start);
    if (!inserted) it->second = std::min(it->second, a.start);
  }
  return out;
}

bool inside_any(const std::vector<TimeInterval>& ranges, TimeNs t) {
  // ranges sorted by start; instances of one name rarely nest, so a scan back from the last start <= t.
  auto it = std::upper_bound(ranges.begin(), ranges.end(), t, [](TimeNs v, const TimeInterval& r) { return v < r.start; });
  for (int back = 0; it != ranges.begin() && back < 64; ++back) {  // ranges of one name do not nest 64 deep
    --it;
    if (t <= it->end) return true;
  }
  return false;
}

template <typename Record>
void assign_record(std::vector<Record>& records, std::size_t i, const Record& r) { records[i] = r; }
void assign_record(DispatchTable& records, std::size_t i, const Dispatch& r) { records.set(i, r); }

template <typename Records, typename Keep>
std::vector<Index> erase_outside(Records& records, Keep keep, std::size_t& dropped) {
  std::vector<Index> new_index(records.size(), kNoIndex);
  std::size_t out = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (!keep(records[i])) continue;
    new_index[i] = static_cast<Index>(out);
    if (out != i) assign_record(records, out, records[i]);
    ++out;
  }
  dropped = records.size() - out;
  records.resize(out);
  return new_index;
}

}  // namespace

AnalysisWindow restrict_to_window(Trace& trace, const std::optional<std::string>& range_name) {
  AnalysisWindow w;
  if (range_name) w.requested_range = *range_name;

  std::vector<TimeInterval> ranges;
  if (range_name)
    for (const ApiCall& a : trace.api_calls)
      if (is_marker_range(trace, a) && trace.strings.at(a.name) == *range_name) ranges.push_back({a.start, a.end});
  std::sort(ranges.begin(), ranges.end(), [](const TimeInterval& a, const TimeInterval& b) { return a.start < b.start; });
  w.range_instances = ranges.size();

  std::size_t dropped_dispatches = 0, dropped_copies = 0;
  std::vector<Index> new_dispatch;
  if (!ranges.empty()) {
    w.source = WindowSource::Range;
    const auto launches = launch_starts(trace);
    const TimeNs first = ranges.front().start;
    TimeNs last = first;
    for (const TimeInterval& r : ranges) last = std::max(last, r.end);
    auto inside = [&](const auto& rec) {
      auto it = rec.correlation_id != 0 ? launches.find(launch_key(rec.process, rec.correlation_id)) : launches.end();
      if (it != launches.end()) return inside_any(ranges, it->second);
      return rec.start >= first && rec.start <= last;
    };
    new_dispatch = erase_outside(trace.dispatches, inside, dropped_dispatches);
    erase_outside(trace.copies, inside, dropped_copies);
    w.start = first;
    w.end = last;
    for (std::size_t i = 0; i < trace.dispatches.size(); ++i) w.end = std::max(w.end, trace.dispatches.end_of(i));
    for (const MemoryCopy& c : trace.copies) w.end = std::max(w.end, c.end);
    w.description = fmt::format("NVTX/ROCTx range '{}' ({} instance{}): the work launched inside it", *range_name,
                                ranges.size(), ranges.size() == 1 ? "" : "s");
  } else if (!trace.dispatches.empty()) {
    w.source = WindowSource::FirstToLastKernel;
    w.start = std::numeric_limits<TimeNs>::max();
    w.end = std::numeric_limits<TimeNs>::min();
    for (std::size_t i = 0; i < trace.dispatches.size(); ++i) {
      w.start = std::min(w.start, trace.dispatches.start_of(i));
      w.end = std::max(w.end, trace.dispatches.end_of(i));
    }
    const TimeNs s = w.start, e = w.end;
    erase_outside(trace.copies, [&](const MemoryCopy& c) { return c.end >= s && c.start <= e; }, dropped_copies);
    w.description = range_name ? fmt::format("first to last kernel: the trace has no NVTX/ROCTx range named '{}'",
                                             *range_name)
                               : std::string("first to last kernel (start-up before and tear-down after left out)");
  } else {
    w.description = range_name ? fmt::format("whole trace: no kernel, and no NVTX/ROCTx range named '{}'", *range_name)
                               : std::string("whole trace (no kernel)");
    return w;
  }
  w.dropped_dispatches = dropped_dispatches;
  w.dropped_copies = dropped_copies;

  if (!new_dispatch.empty() && dropped_dispatches > 0) {
    std::erase_if(trace.counters, [&](const CounterSample& c) {
      return c.dispatch >= new_dispatch.size() || new_dispatch[c.dispatch] == kNoIndex;
    });
    for (CounterSample& c : trace.counters) c.dispatch = new_dispatch[c.dispatch];
  }
  // Host API calls and synchronisation records stay: the calls that launched or ordered the work inside
  // the window were made before it started on the GPU, and the DAG and the idle attribution look them up.
  return w;
}

}  // namespace rpl::analysis
