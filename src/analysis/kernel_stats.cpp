// Per-kernel duration statistics and whole-trace timing.
//
// Cost: O(N) passes over the dispatches plus O(N log N) only where the dispatches (or copies) are not
// already ordered by start. Dispatches are grouped through a vector indexed by symbol (symbols with
// the same display name share one interned string id, so no string is compared per dispatch); each
// kernel's median is selected exactly over the duration column read again in a few passes
// (analysis/group_medians.hpp), with no per-dispatch buffer.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include "analysis/fast_sort.hpp"
#include "analysis/group_medians.hpp"
#include "analysis/kernel_stats.hpp"
#include "analysis/time_interval.hpp"
#include "support/errors.hpp"

namespace rpl::analysis {

Stability classify_cv(double cv) {
  if (cv <= 0.05) return Stability::Stable;
  if (cv <= 0.10) return Stability::Moderate;
  return Stability::Unstable;
}

const char* to_string(Stability s) {
  switch (s) {
    case Stability::Stable: return "stable";
    case Stability::Moderate: return "moderate";
    case Stability::Unstable: return "unstable";
  }
  return "unknown";
}

namespace {

// Statistics of values[0, n); reorders them.
DurationStats stats_of(double* values, std::size_t n) {
  DurationStats s;
  s.count = n;
  if (n == 0) return s;
  long double total = 0;  // 64-bit mantissa: exact for any realistic sum of integer nanoseconds
  double lo = values[0], hi = values[0];
  for (std::size_t i = 0; i < n; ++i) {
    total += values[i];
    lo = std::min(lo, values[i]);
    hi = std::max(hi, values[i]);
  }
  s.total_ns = static_cast<double>(total);
  s.mean_ns = static_cast<double>(total / static_cast<long double>(n));
  s.min_ns = lo;
  s.max_ns = hi;
  if (n > 1) {
    // Two passes (mean first) keep the variance accurate when durations are large and close together.
    long double squares = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const long double d = values[i] - static_cast<long double>(s.mean_ns);
      squares += d * d;
    }
    s.stddev_ns = static_cast<double>(std::sqrt(squares / static_cast<long double>(n - 1)));
  }
  s.cv = s.mean_ns > 0 ? s.stddev_ns / s.mean_ns : 0;
  s.stability = classify_cv(s.cv);
  const std::size_t mid = n / 2;
  std::nth_element(values, values + mid, values + n);
  if (n % 2 == 1) {
    s.median_ns = values[mid];
  } else {
    // After nth_element everything left of mid is <= values[mid]; its maximum is the lower middle.
    const double lower = *std::max_element(values, values + mid);
    s.median_ns = (lower + values[mid]) / 2;
  }
  return s;
}

TimeNs start_of(const DispatchTable& t, std::size_t i) { return t.start_of(i); }
TimeNs end_of(const DispatchTable& t, std::size_t i) { return t.end_of(i); }
TimeNs start_of(const std::vector<MemoryCopy>& t, std::size_t i) { return t[i].start; }
TimeNs end_of(const std::vector<MemoryCopy>& t, std::size_t i) { return t[i].end; }

// The [start, end) intervals of Dispatch or MemoryCopy records in start order: the records
// themselves when they already are in that order (the usual case), else a sorted copy.
template <typename Records>
class SortedIntervals {
 public:
  // `sorted`: whether the records are in start order (the caller's pass over them found out).
  SortedIntervals(const Records& records, bool sorted) : records_(records) {
    if (sorted) return;
    copy_.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) copy_.push_back({start_of(records, i), end_of(records, i)});
    // Only the start order matters to the unions below (intervals of equal start may come in any order).
    if (std::all_of(copy_.begin(), copy_.end(), [](const TimeInterval& iv) { return iv.start >= 0; }))
      radix_sort_by_key(copy_, [](const TimeInterval& iv) { return static_cast<uint64_t>(iv.start); });
    else
      std::sort(copy_.begin(), copy_.end(), [](const TimeInterval& a, const TimeInterval& b) { return a.start < b.start; });
  }
  std::size_t size() const { return records_.size(); }
  TimeInterval operator[](std::size_t i) const {
    if (!copy_.empty()) return copy_[i];
    return {start_of(records_, i), end_of(records_, i)};
  }

 private:
  const Records& records_;
  std::vector<TimeInterval> copy_;
};

// Length of the union of intervals fed in nondecreasing start order.
class UnionLength {
 public:
  void add(TimeInterval iv) {
    if (!open_) {
      current_ = iv;
      open_ = true;
    } else if (iv.start > current_.end) {
      total_ += current_.end - current_.start;
      current_ = iv;
    } else {
      current_.end = std::max(current_.end, iv.end);
    }
  }
  TimeNs total() const { return total_ + (open_ ? current_.end - current_.start : 0); }

 private:
  bool open_ = false;
  TimeInterval current_{0, 0};
  TimeNs total_ = 0;
};

template <typename A>
TimeNs union_of(const A& a) {
  UnionLength u;
  for (std::size_t i = 0; i < a.size(); ++i) u.add(a[i]);
  return u.total();
}

// Union of two start-ordered sequences, merged on the fly.
template <typename A, typename B>
TimeNs union_of(const A& a, const B& b) {
  UnionLength u;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].start <= b[j].start))
      u.add(a[i++]);
    else
      u.add(b[j++]);
  }
  return u.total();
}

// The dispatches' [start, end) intervals in start order without a sorted copy of them (16 bytes per dispatch,
// the run's peak when the trace is not in start order; issue 32): traces interleave their streams but stay near
// start order, so a min-heap of kWindow intervals read in record order emits them sorted. A record that starts
// before one already emitted shows the window too small (`overflowed`): the caller then sorts a copy. With a
// process given, only that process's records in [first, last) are read.
class WindowSortedDispatches {
 public:
  WindowSortedDispatches(const DispatchTable& t, Index process, std::size_t first, std::size_t last)
      : table_(t), process_(process), next_(first), last_(last) {
    heap_.reserve(kWindow + 1);
    fill();
  }
  bool done() const { return heap_.empty(); }
  TimeInterval front() const { return heap_.front(); }
  void pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    last_start_ = heap_.back().start;
    heap_.pop_back();
    fill();
  }
  bool overflowed() const { return overflowed_; }

 private:
  static constexpr std::size_t kWindow = 512;
  static bool later(const TimeInterval& a, const TimeInterval& b) { return a.start > b.start; }
  void fill() {
    for (; heap_.size() < kWindow && next_ < last_; ++next_) {
      if (process_ != kNoIndex && table_.process_of(next_) != process_) continue;
      const TimeInterval iv{table_.start_of(next_), table_.end_of(next_)};
      overflowed_ = overflowed_ || iv.start < last_start_;
      heap_.push_back(iv);
      std::push_heap(heap_.begin(), heap_.end(), later);
    }
  }
  const DispatchTable& table_;
  Index process_;
  std::vector<TimeInterval> heap_;
  std::size_t next_, last_;
  TimeNs last_start_ = std::numeric_limits<TimeNs>::min();
  bool overflowed_ = false;
};

// One window over all the dispatches, or with a few processes one per process, merged: several processes' records
// (one database after another) are each near start order, not all together.
std::vector<WindowSortedDispatches> dispatch_windows(const DispatchTable& dispatches, std::size_t processes) {
  constexpr std::size_t kMaxProcessWindows = 16;
  std::vector<WindowSortedDispatches> windows;
  if (processes < 2 || processes > kMaxProcessWindows) {
    windows.emplace_back(dispatches, kNoIndex, 0, dispatches.size());
    return windows;
  }
  // Each process's records lie in [first, last): one range each when the processes' records follow one another.
  std::vector<std::size_t> first(processes, dispatches.size()), last(processes, 0);
  for (std::size_t i = 0; i < dispatches.size(); ++i) {
    const Index p = dispatches.process_of(i);
    if (p >= processes) {  // not a process of the table: one window over all, as without processes
      windows.emplace_back(dispatches, kNoIndex, 0, dispatches.size());
      return windows;
    }
    first[p] = std::min(first[p], i), last[p] = i + 1;
  }
  for (Index p = 0; p < processes; ++p)
    if (first[p] < last[p]) windows.emplace_back(dispatches, p, first[p], last[p]);
  return windows;
}

// Kernel busy time (the dispatches' union) and GPU busy time (with the copies', `copies` in start order) in
// one windowed pass over the dispatches; nothing when a window overflowed.
template <typename Copies>
std::optional<std::pair<TimeNs, TimeNs>> windowed_unions(const DispatchTable& dispatches, std::size_t processes,
                                                         const Copies& copies) {
  std::vector<WindowSortedDispatches> windows = dispatch_windows(dispatches, processes);
  // The window whose next interval starts first; none when every window is done.
  auto earliest = [&]() -> WindowSortedDispatches* {
    WindowSortedDispatches* best = nullptr;
    for (WindowSortedDispatches& w : windows)
      if (!w.done() && (!best || w.front().start < best->front().start)) best = &w;
    return best;
  };
  UnionLength kernels, gpu;
  std::size_t j = 0;
  for (WindowSortedDispatches* d = earliest(); d || j < copies.size(); d = earliest()) {
    if (j == copies.size() || (d && d->front().start <= copies[j].start)) {
      kernels.add(d->front());
      gpu.add(d->front());
      d->pop();
    } else {
      gpu.add(copies[j++]);
    }
  }
  for (const WindowSortedDispatches& w : windows)
    if (w.overflowed()) return std::nullopt;
  return std::pair{kernels.total(), gpu.total()};
}

[[noreturn]] void negative_duration(const char* what, int64_t id, Index process, TimeNs start, TimeNs end) {
  throw Error(ExitCode::InputInvalid,
              fmt::format("{} {} of process index {} ends before it starts (start {} ns, end {} ns)", what, id,
                          process == kNoIndex ? -1 : static_cast<int64_t>(process), start, end));
}

}  // namespace

DurationStats compute_duration_stats(std::vector<double>& values) { return stats_of(values.data(), values.size()); }

namespace {

// Kernel groups: one per distinct name string id. A symbol without a display name groups by its mangled
// name, so it is neither lost nor merged with other unnamed symbols.
struct KernelGroups {
  std::vector<int32_t> of_symbol;          // group per symbol
  std::vector<Index> name;                 // string id per group
  std::vector<std::vector<Index>> symbols;  // symbols per group, ascending
};

KernelGroups group_kernels(const Trace& trace) {
  KernelGroups groups;
  const std::size_t symbol_count = trace.symbols.size();
  std::vector<int32_t> group_of_string(trace.strings.size(), -1);
  groups.of_symbol.assign(symbol_count, -1);
  for (Index s = 0; s < symbol_count; ++s) {
    const KernelSymbol& sym = trace.symbols[s];
    const Index name = sym.display_name != 0 ? sym.display_name : sym.mangled_name;
    if (name >= group_of_string.size())
      throw Error(ExitCode::InputInvalid, fmt::format("kernel symbol {} has a name id {} outside the string table",
                                                      sym.rocpd_id, name));
    int32_t& g = group_of_string[name];
    if (g < 0) {
      g = static_cast<int32_t>(groups.name.size());
      groups.name.push_back(name);
      groups.symbols.emplace_back();
    }
    groups.of_symbol[s] = g;
    groups.symbols[g].push_back(s);
  }
  return groups;
}

}  // namespace

KernelStatsResult compute_kernel_stats(const Trace& trace) {
  KernelStatsResult result;
  TraceTiming& timing = result.timing;
  timing.dispatch_count = trace.dispatches.size();
  timing.copy_count = trace.copies.size();
  timing.process_count = trace.processes.size();

  KernelGroups groups = group_kernels(trace);
  const std::size_t symbol_count = trace.symbols.size();
  const std::vector<int32_t>& group_of_symbol = groups.of_symbol;
  const std::vector<Index>& group_name = groups.name;
  std::vector<std::vector<Index>>& group_symbols = groups.symbols;
  const std::size_t group_count = group_name.size();

  // Pass 1: validate, count per group, sum, find the wall-clock bounds.
  std::vector<std::size_t> group_size(group_count, 0);
  std::vector<long double> group_total(group_count, 0);  // in dispatch order, as stats_of summed a group's values
  TimeNs wall_start = std::numeric_limits<TimeNs>::max();
  TimeNs wall_end = std::numeric_limits<TimeNs>::min();
  long double dispatch_sum = 0;
  // Whether the records are in start order, found here rather than by another pass over them (issue 32).
  bool dispatches_sorted = true, copies_sorted = true;
  TimeNs previous_start = std::numeric_limits<TimeNs>::min();
  const DispatchTable& dispatches = trace.dispatches;
  for (std::size_t i = 0; i < dispatches.size(); ++i) {  // by column: start, end and symbol only
    const Index symbol = dispatches.symbol_of(i);
    const TimeNs start = dispatches.start_of(i), end = dispatches.end_of(i);
    if (symbol >= symbol_count)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("dispatch {} refers to kernel symbol index {}, but the trace has {} symbols",
                              dispatches.dispatch_id_of(i), symbol == kNoIndex ? -1 : static_cast<int64_t>(symbol),
                              symbol_count));
    if (end < start) negative_duration("dispatch", dispatches.dispatch_id_of(i), dispatches.process_of(i), start, end);
    ++group_size[group_of_symbol[symbol]];
    group_total[group_of_symbol[symbol]] += static_cast<double>(end - start);
    dispatches_sorted = dispatches_sorted && start >= previous_start;
    previous_start = start;
    dispatch_sum += end - start;
    wall_start = std::min(wall_start, start);
    wall_end = std::max(wall_end, end);
  }
  long double copy_sum = 0;
  previous_start = std::numeric_limits<TimeNs>::min();
  for (const MemoryCopy& c : trace.copies) {
    if (c.end < c.start) negative_duration("memory copy", c.copy_id, c.process, c.start, c.end);
    copies_sorted = copies_sorted && c.start >= previous_start;
    previous_start = c.start;
    copy_sum += c.end - c.start;
    wall_start = std::min(wall_start, c.start);
    wall_end = std::max(wall_end, c.end);
  }
  timing.runtime_ns = static_cast<double>(dispatch_sum);
  timing.copy_time_ns = static_cast<double>(copy_sum);
  if (!trace.empty()) {
    timing.wall_start_ns = wall_start;
    timing.wall_end_ns = wall_end;
    timing.wall_span_ns = static_cast<double>(wall_end - wall_start);
  }

  // Per group, in dispatch order (the order stats_of summed them in, so that the figures are the same): from
  // the mean, the squared deviations; the median by exact selection over the duration column read
  // again (analysis/group_medians.hpp). No per-dispatch buffer (issue 32: 8 bytes per dispatch before).
  std::vector<long double> group_squares(group_count, 0);
  std::vector<long double> group_mean(group_count, 0);
  for (std::size_t g = 0; g < group_count; ++g) {
    const std::size_t n = group_size[g];
    if (n > 0) group_mean[g] = static_cast<double>(group_total[g] / static_cast<long double>(n));
  }
  for (std::size_t i = 0; i < dispatches.size(); ++i) {
    const std::size_t g = group_of_symbol[dispatches.symbol_of(i)];
    const long double d = static_cast<double>(dispatches.duration_of(i)) - group_mean[g];
    group_squares[g] += d * d;
  }
  GroupMedians medians(group_count);
  medians.compute([&](auto add) {
    for (std::size_t i = 0; i < dispatches.size(); ++i) add(group_of_symbol[dispatches.symbol_of(i)], dispatches.duration_of(i));
  });

  // Per kernel, skipping names that never ran.
  for (std::size_t g = 0; g < group_count; ++g) {
    const std::size_t n = group_size[g];
    if (n == 0) continue;
    KernelStats k;
    k.name = trace.strings.at(group_name[g]);
    k.mangled_name = trace.strings.at(trace.symbols[group_symbols[g].front()].mangled_name);
    k.runtime_kernel = is_runtime_kernel(k.name);
    DurationStats& s = k.durations;  // as stats_of computes them from the group's values
    s.count = n;
    s.total_ns = static_cast<double>(group_total[g]);
    s.mean_ns = static_cast<double>(group_mean[g]);
    s.min_ns = static_cast<double>(medians.min(g));
    s.max_ns = static_cast<double>(medians.max(g));
    if (n > 1) s.stddev_ns = static_cast<double>(std::sqrt(group_squares[g] / static_cast<long double>(n - 1)));
    s.cv = s.mean_ns > 0 ? s.stddev_ns / s.mean_ns : 0;
    s.stability = classify_cv(s.cv);
    s.median_ns = medians.median(g);
    k.share_of_gpu_time = timing.runtime_ns > 0 ? k.durations.total_ns / timing.runtime_ns : 0;
    k.symbols = std::move(group_symbols[g]);
    result.kernels.push_back(std::move(k));
  }
  std::sort(result.kernels.begin(), result.kernels.end(), [](const KernelStats& a, const KernelStats& b) {
    if (a.durations.total_ns != b.durations.total_ns) return a.durations.total_ns > b.durations.total_ns;
    return a.name < b.name;
  });
  for (std::size_t i = 0; i < result.kernels.size(); ++i)
    if (!result.kernels[i].runtime_kernel) {
      result.dominant = static_cast<int>(i);
      break;
    }

  // Busy time: unions over every agent and process (see TraceTiming).
  const SortedIntervals<std::vector<MemoryCopy>> copy_intervals(trace.copies, copies_sorted);
  if (!dispatches_sorted) {
    // The union does not depend on the order of intervals of equal start: the same figures as a sorted copy's.
    if (auto busy = windowed_unions(trace.dispatches, trace.processes.size(), copy_intervals)) {
      timing.kernel_busy_ns = static_cast<double>(busy->first);
      timing.gpu_busy_ns = static_cast<double>(busy->second);
      return result;
    }
  }
  const SortedIntervals<DispatchTable> dispatch_intervals(trace.dispatches, dispatches_sorted);
  timing.kernel_busy_ns = static_cast<double>(union_of(dispatch_intervals));
  timing.gpu_busy_ns = static_cast<double>(union_of(dispatch_intervals, copy_intervals));
  return result;
}

}  // namespace rpl::analysis
