#include "analysis/trace_summaries.hpp"

#include <algorithm>
#include <map>

#include "analysis/analysis_window.hpp"

namespace rpl::analysis {
namespace {

template <typename Summary>
void add(Summary& s, TimeNs duration) {
  s.min_ns = s.count == 0 ? duration : std::min(s.min_ns, duration);
  s.max_ns = s.count == 0 ? duration : std::max(s.max_ns, duration);
  s.total_ns += duration;
  ++s.count;
}

template <typename Summary>
std::vector<Summary> longest_first(std::map<std::string, Summary>& by_name) {
  std::vector<Summary> out;
  for (auto& [name, s] : by_name) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(), [](const Summary& a, const Summary& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace

std::vector<CopyKindSummary> copy_summary(const Trace& trace) {
  std::map<std::string, CopyKindSummary> by_kind;
  for (const MemoryCopy& c : trace.copies) {
    const std::string kind(trace.strings.at(c.kind));
    CopyKindSummary& s = by_kind[kind];
    s.kind = kind;
    add(s, std::max<TimeNs>(0, c.end - c.start));
    s.bytes += c.bytes;
  }
  for (auto& [kind, s] : by_kind) s.gbps = s.total_ns > 0 ? static_cast<double>(s.bytes) / static_cast<double>(s.total_ns) : 0;
  return longest_first(by_kind);
}

std::vector<RangeSummary> range_summary(const Trace& trace) {
  std::map<std::string, RangeSummary> by_name;
  for (const ApiCall& a : trace.api_calls) {
    if (!is_marker_range(trace, a)) continue;
    const std::string name(trace.strings.at(a.name));
    RangeSummary& s = by_name[name];
    s.name = name;
    add(s, std::max<TimeNs>(0, a.end - a.start));
  }
  return longest_first(by_name);
}

}  // namespace rpl::analysis
