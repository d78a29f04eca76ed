#include "analysis/trace_summaries.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

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

// Adds one rank's count, total, min and max of a kind or name to the job's (`first`: the first rank that has it).
template <typename Summary>
void merge_counts(Summary& job, const Summary& rank, bool first) {
  job.min_ns = first ? rank.min_ns : std::min(job.min_ns, rank.min_ns);
  job.max_ns = first ? rank.max_ns : std::max(job.max_ns, rank.max_ns);
  job.count += rank.count;
  job.total_ns += rank.total_ns;
}

template <typename Summary>
std::vector<Summary> longest_first(std::map<std::string, Summary>& by_name) {
  std::vector<Summary> out;
  for (auto& [name, s] : by_name) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(), [](const Summary& a, const Summary& b) { return a.total_ns > b.total_ns; });
  return out;
}

struct Interval {
  TimeNs start, end;
};

struct LaunchCall {
  TimeNs start;
  uint32_t thread;
  int64_t correlation;
};

// The GPU work of each (process, correlation id) and each process's launching calls by start: what a range
// looks up to find the work launched inside it.
struct LaunchIndex {
  std::unordered_map<uint64_t, std::vector<Interval>> kernels, copies;
  std::vector<std::vector<LaunchCall>> calls;  // per process, by start
};

LaunchIndex index_launches(const Trace& trace) {
  LaunchIndex x;
  const DispatchTable& dispatches = trace.dispatches;
  for (std::size_t i = 0; i < dispatches.size(); ++i)
    if (dispatches.correlation_id_of(i) != 0)
      x.kernels[launch_key(dispatches.process_of(i), dispatches.correlation_id_of(i))].push_back(
          {dispatches.start_of(i), dispatches.end_of(i)});
  for (const MemoryCopy& c : trace.copies)
    if (c.correlation_id != 0) x.copies[launch_key(c.process, c.correlation_id)].push_back({c.start, c.end});
  x.calls.resize(trace.processes.size());
  for (const ApiCall& a : trace.api_calls)
    if (a.correlation_id != 0 && a.process < x.calls.size() && !is_marker_range(trace, a))
      x.calls[a.process].push_back({a.start, a.thread, a.correlation_id});
  for (auto& calls : x.calls)
    std::sort(calls.begin(), calls.end(), [](const LaunchCall& a, const LaunchCall& b) { return a.start < b.start; });
  return x;
}

// Adds the work launched inside one range instance to `s`.
void add_gpu_work(RangeSummary& s, const ApiCall& range, const LaunchIndex& x) {
  if (range.process >= x.calls.size()) return;
  const auto& calls = x.calls[range.process];
  auto it = std::lower_bound(calls.begin(), calls.end(), range.start,
                             [](const LaunchCall& c, TimeNs t) { return c.start < t; });
  std::vector<int64_t> correlations;  // a runtime call and the driver call it makes share one id: counted once
  for (; it != calls.end() && it->start <= range.end; ++it)
    if (range.thread == 0 || it->thread == range.thread) correlations.push_back(it->correlation);
  std::sort(correlations.begin(), correlations.end());
  correlations.erase(std::unique(correlations.begin(), correlations.end()), correlations.end());
  std::vector<Interval> work;
  auto take = [&](const std::unordered_map<uint64_t, std::vector<Interval>>& by_launch, int64_t correlation) {
    auto found = by_launch.find(launch_key(range.process, correlation));
    if (found == by_launch.end()) return std::size_t{0};
    work.insert(work.end(), found->second.begin(), found->second.end());
    return found->second.size();
  };
  for (int64_t c : correlations) {
    s.gpu_kernels += take(x.kernels, c);
    s.gpu_copies += take(x.copies, c);
  }
  if (work.empty()) return;
  std::sort(work.begin(), work.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  TimeNs first = work.front().start, last = work.front().end, run_start = first, run_end = first;
  for (const Interval& w : work) {
    last = std::max(last, w.end);
    if (w.start > run_end) {
      s.gpu_busy_ns += run_end - run_start;
      run_start = w.start;
      run_end = w.start;
    }
    run_end = std::max(run_end, w.end);
  }
  s.gpu_busy_ns += run_end - run_start;
  s.gpu_span_ns += last - first;
}

}  // namespace

std::vector<CopyKindSummary> copy_summary(const Trace& trace, Index process) {
  std::map<std::string, CopyKindSummary> by_kind;
  for (const MemoryCopy& c : trace.copies) {
    if (process != kNoIndex && c.process != process) continue;
    const std::string kind(trace.strings.at(c.kind));
    CopyKindSummary& s = by_kind[kind];
    s.kind = kind;
    add(s, std::max<TimeNs>(0, c.end - c.start));
    s.bytes += c.bytes;
  }
  for (auto& [kind, s] : by_kind) s.gbps = s.total_ns > 0 ? static_cast<double>(s.bytes) / static_cast<double>(s.total_ns) : 0;
  return longest_first(by_kind);
}

std::vector<RangeSummary> range_summary(const Trace& trace, Index process) {
  std::map<std::string, RangeSummary> by_name;
  std::optional<LaunchIndex> launches;  // built at the first range: a trace without ranges pays nothing
  for (const ApiCall& a : trace.api_calls) {
    if (!is_marker_range(trace, a) || (process != kNoIndex && a.process != process)) continue;
    const std::string name(trace.strings.at(a.name));
    RangeSummary& s = by_name[name];
    s.name = name;
    add(s, std::max<TimeNs>(0, a.end - a.start));
    if (!launches) launches = index_launches(trace);
    add_gpu_work(s, a, *launches);
  }
  return longest_first(by_name);
}

std::vector<RangeSummary> range_instance_work(const Trace& trace, const std::vector<std::size_t>& ranges) {
  std::vector<RangeSummary> out;
  if (ranges.empty()) return out;
  const LaunchIndex launches = index_launches(trace);
  out.reserve(ranges.size());
  for (std::size_t i : ranges) {
    const ApiCall& a = trace.api_calls.at(i);
    RangeSummary& s = out.emplace_back();
    s.name = trace.strings.at(a.name);
    add(s, std::max<TimeNs>(0, a.end - a.start));
    add_gpu_work(s, a, launches);
  }
  return out;
}

std::vector<RankedCopyKind> copies_across_ranks(const std::vector<RankSummaries<CopyKindSummary>>& ranks) {
  std::map<std::string, RankedCopyKind> by_kind;
  for (const auto& r : ranks)
    for (const CopyKindSummary& c : *r.summaries) {
      RankedCopyKind& k = by_kind[c.kind];
      merge_counts(k.total, c, k.ranks == 0);
      k.total.kind = c.kind;
      k.total.bytes += c.bytes;
      ++k.ranks;
    }
  std::vector<RankedCopyKind> out;
  for (auto& [kind, k] : by_kind) {
    k.total.gbps = k.total.total_ns > 0 ? static_cast<double>(k.total.bytes) / static_cast<double>(k.total.total_ns) : 0;
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankedCopyKind& a, const RankedCopyKind& b) { return a.total.total_ns > b.total.total_ns; });
  return out;
}

std::vector<RankedRange> ranges_across_ranks(const std::vector<RankSummaries<RangeSummary>>& ranks) {
  std::map<std::string, RankedRange> by_name;
  for (const auto& r : ranks)
    for (const RangeSummary& s : *r.summaries) {
      RankedRange& k = by_name[s.name];
      RangeSummary& t = k.total;
      merge_counts(t, s, k.ranks == 0);
      t.name = s.name;
      t.gpu_kernels += s.gpu_kernels;
      t.gpu_copies += s.gpu_copies;
      t.gpu_busy_ns += s.gpu_busy_ns;
      t.gpu_span_ns += s.gpu_span_ns;
      const double mean = s.count ? static_cast<double>(s.total_ns) / static_cast<double>(s.count) : 0;
      if (k.ranks == 0 || mean > k.slowest_mean_ns) k.slowest_rank = r.rank, k.slowest_mean_ns = mean;
      if (k.ranks == 0 || mean < k.fastest_mean_ns) k.fastest_rank = r.rank, k.fastest_mean_ns = mean;
      ++k.ranks;
    }
  std::vector<RankedRange> out;
  for (auto& [name, k] : by_name) out.push_back(std::move(k));
  std::stable_sort(out.begin(), out.end(),
                   [](const RankedRange& a, const RankedRange& b) { return a.total.total_ns > b.total.total_ns; });
  return out;
}

}  // namespace rpl::analysis
