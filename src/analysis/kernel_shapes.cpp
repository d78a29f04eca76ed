// Per-kernel launch shapes; see kernel_shapes.hpp.
#include "analysis/kernel_shapes.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/fast_sort.hpp"

namespace rpl::analysis {

const char* to_string(VariationScope s) {
  switch (s) {
    case VariationScope::WithinShape: return "between dispatches of one shape";
    case VariationScope::WithinDurationClass: return "between dispatches of one shape and duration class";
    case VariationScope::BetweenShapes: return "between shapes";
  }
  return "unknown";
}

namespace {

using ShapeKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;

ShapeKey key_of(const DispatchShape& d) {
  return {d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], d.lds_bytes};
}

// A group's durations as ascending distinct values with their counts (issue 32: the shapes held every duration, 8
// bytes per dispatch and a sort buffer; a kernel's durations repeat, so the runs are far fewer). Values arrive in
// any order, buffered and merged a chunk at a time.
struct DurationRun {
  int64_t value;
  uint64_t count;
};
class DurationRuns {
 public:
  void add(int64_t v) {
    pending_.push_back(v);
    if (pending_.size() == kChunk) flush();
  }
  const std::vector<DurationRun>& runs() {
    flush();
    std::vector<int64_t>().swap(pending_);
    return runs_;
  }

 private:
  static constexpr std::size_t kChunk = 1 << 14;
  void flush() {
    if (pending_.empty()) return;
    if (std::all_of(pending_.begin(), pending_.end(), [](int64_t v) { return v >= 0; }))
      radix_sort_by_key(pending_, [](int64_t v) { return static_cast<uint64_t>(v); });
    else
      std::sort(pending_.begin(), pending_.end());
    std::vector<DurationRun> merged;
    merged.reserve(runs_.size() + pending_.size());
    auto put = [&](int64_t v, uint64_t n) {
      if (!merged.empty() && merged.back().value == v) merged.back().count += n;
      else merged.push_back({v, n});
    };
    std::size_t i = 0;
    for (const DurationRun& r : runs_) {
      for (; i < pending_.size() && pending_[i] < r.value; ++i) put(pending_[i], 1);
      put(r.value, r.count);
    }
    for (; i < pending_.size(); ++i) put(pending_[i], 1);
    merged.shrink_to_fit();
    runs_ = std::move(merged);
    pending_.clear();
  }
  std::vector<int64_t> pending_;
  std::vector<DurationRun> runs_;
};

// The statistics compute_duration_stats gives for the sorted values of runs [first, last): the same operations
// in the same order (a value repeated count times is added count times).
DurationStats stats_of_runs(const DurationRun* first, const DurationRun* last) {
  DurationStats s;
  for (const DurationRun* r = first; r != last; ++r) s.count += r->count;
  const std::size_t n = s.count;
  if (n == 0) return s;
  long double total = 0;
  for (const DurationRun* r = first; r != last; ++r)
    for (uint64_t k = 0; k < r->count; ++k) total += static_cast<double>(r->value);
  s.total_ns = static_cast<double>(total);
  s.mean_ns = static_cast<double>(total / static_cast<long double>(n));
  s.min_ns = static_cast<double>(first->value);
  s.max_ns = static_cast<double>((last - 1)->value);
  if (n > 1) {
    long double squares = 0;
    for (const DurationRun* r = first; r != last; ++r) {
      const long double d = static_cast<double>(r->value) - static_cast<long double>(s.mean_ns);
      for (uint64_t k = 0; k < r->count; ++k) squares += d * d;
    }
    s.stddev_ns = static_cast<double>(std::sqrt(squares / static_cast<long double>(n - 1)));
  }
  s.cv = s.mean_ns > 0 ? s.stddev_ns / s.mean_ns : 0;
  s.stability = classify_cv(s.cv);
  // The values at ranks n/2 - 1 and n/2 of the sorted sequence.
  auto at_rank = [&](std::size_t rank) {
    for (const DurationRun* r = first; r != last; ++r) {
      if (rank < r->count) return static_cast<double>(r->value);
      rank -= r->count;
    }
    return static_cast<double>((last - 1)->value);
  };
  s.median_ns = n % 2 ? at_rank(n / 2) : (at_rank(n / 2 - 1) + at_rank(n / 2)) / 2;
  return s;
}

// Splits the sorted runs into duration classes (see LaunchShape) and fills the shape's class fields. A class
// boundary lies between two distinct values (equal values never jump), so classes are ranges of runs.
void duration_classes(const std::vector<DurationRun>& runs, LaunchShape& shape) {
  std::vector<std::pair<std::size_t, std::size_t>> classes;  // [begin, end) of runs
  std::vector<std::size_t> size_of;                           // dispatches per class
  std::size_t begin = 0, dispatches = 0, in_class = 0;
  for (std::size_t i = 0; i <= runs.size(); ++i) {
    if (i == runs.size() ||
        (i > 0 && static_cast<double>(runs[i].value) > static_cast<double>(runs[i - 1].value) * kDurationClassJump)) {
      classes.emplace_back(begin, i);
      size_of.push_back(in_class);
      begin = i;
      in_class = 0;
    }
    if (i < runs.size()) in_class += runs[i].count, dispatches += runs[i].count;
  }
  const std::size_t min_size =
      std::max(kMinClassDispatches, static_cast<std::size_t>(kMinClassShare * static_cast<double>(dispatches)));
  auto low = [&](std::size_t c) { return static_cast<double>(runs[classes[c].first].value); };
  auto high = [&](std::size_t c) { return static_cast<double>(runs[classes[c].second - 1].value); };
  // Merge small classes into the nearer neighbour (by duration) until every class is big enough.
  for (bool merged = true; merged && classes.size() > 1;) {
    merged = false;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (size_of[c] >= min_size) continue;
      std::size_t into;
      if (c == 0) into = 1;
      else if (c + 1 == classes.size()) into = c - 1;
      else into = low(c) - high(c - 1) <= low(c + 1) - high(c) ? c - 1 : c + 1;
      const std::size_t lo = std::min(c, into), hi = std::max(c, into);
      classes[lo] = {classes[lo].first, classes[hi].second};
      size_of[lo] += size_of[hi];
      classes.erase(classes.begin() + static_cast<std::ptrdiff_t>(hi));
      size_of.erase(size_of.begin() + static_cast<std::ptrdiff_t>(hi));
      merged = true;
      break;
    }
  }
  double weighted = 0, weight = 0;
  for (auto [b, e] : classes) {
    const DurationStats s = stats_of_runs(runs.data() + b, runs.data() + e);
    shape.class_medians_ns.push_back(s.median_ns);
    weighted += s.cv * s.total_ns;
    weight += s.total_ns;
  }
  shape.within_class_cv = weight > 0 ? weighted / weight : 0;
}

}  // namespace

void compute_kernel_shapes(const Trace& trace, KernelStatsResult& stats) {
  std::vector<int32_t> kernel_of_symbol(trace.symbols.size(), -1);
  for (std::size_t k = 0; k < stats.kernels.size(); ++k)
    for (Index s : stats.kernels[k].symbols)
      if (s < kernel_of_symbol.size()) kernel_of_symbol[s] = static_cast<int32_t>(k);

  // Groups (kernel, shape), found per interned launch (a launch fixes its symbol and shape): no map lookup per
  // dispatch. Per group, in dispatch order as compute_duration_stats took them: count, sum, then the squared
  // deviations from the mean; the sorted durations as runs.
  constexpr uint32_t kUnseen = UINT32_MAX, kNoGroup = UINT32_MAX - 1;
  std::vector<std::map<ShapeKey, uint32_t>> by_kernel(stats.kernels.size());
  std::vector<uint32_t> group_of_launch(trace.dispatches.launch_count(), kUnseen);
  std::vector<DurationRuns> runs;
  std::vector<std::size_t> count;
  std::vector<long double> total, squares, mean;
  const DispatchTable& dispatches = trace.dispatches;
  auto group_of = [&](std::size_t i) {
    uint32_t& g = group_of_launch[dispatches.launch_of(i)];
    if (g != kUnseen) return g;
    const Index symbol = dispatches.symbol_of(i);
    g = kNoGroup;
    if (symbol >= kernel_of_symbol.size() || kernel_of_symbol[symbol] < 0) return g;
    auto [it, inserted] = by_kernel[static_cast<std::size_t>(kernel_of_symbol[symbol])].try_emplace(
        key_of(dispatches.shape_of(i)), static_cast<uint32_t>(runs.size()));
    if (inserted) {
      runs.emplace_back();
      count.push_back(0);
      total.push_back(0);
      squares.push_back(0);
    }
    return g = it->second;
  };
  for (std::size_t i = 0; i < dispatches.size(); ++i) {  // by column: launch and duration only
    const uint32_t g = group_of(i);
    if (g == kNoGroup) continue;
    const TimeNs d = dispatches.duration_of(i);
    runs[g].add(d);
    ++count[g];
    total[g] += static_cast<double>(d);
  }
  mean.resize(runs.size());
  for (std::size_t g = 0; g < runs.size(); ++g) mean[g] = static_cast<double>(total[g] / static_cast<long double>(count[g]));
  for (std::size_t i = 0; i < dispatches.size(); ++i) {
    const uint32_t g = group_of_launch[dispatches.launch_of(i)];
    if (g == kNoGroup || count[g] < 2) continue;
    const long double d = static_cast<double>(dispatches.duration_of(i)) - mean[g];
    squares[g] += d * d;
  }

  for (std::size_t k = 0; k < stats.kernels.size(); ++k) {
    KernelStats& kernel = stats.kernels[k];
    kernel.shapes.clear();
    double weighted_cv = 0, weighted_class_cv = 0, weight = 0;
    kernel.has_duration_classes = false;
    for (const auto& [key, g] : by_kernel[k]) {
      LaunchShape shape;
      std::tie(shape.grid[0], shape.grid[1], shape.grid[2], shape.block[0], shape.block[1], shape.block[2],
               shape.lds_bytes) = key;
      const std::vector<DurationRun>& sorted = runs[g].runs();
      // As compute_duration_stats over the shape's durations in dispatch order; the median from the runs.
      DurationStats& s = shape.durations;
      s = stats_of_runs(sorted.data(), sorted.data() + sorted.size());
      s.total_ns = static_cast<double>(total[g]);
      s.mean_ns = static_cast<double>(mean[g]);
      s.stddev_ns = count[g] > 1 ? static_cast<double>(std::sqrt(squares[g] / static_cast<long double>(count[g] - 1))) : 0;
      s.cv = s.mean_ns > 0 ? s.stddev_ns / s.mean_ns : 0;
      s.stability = classify_cv(s.cv);
      duration_classes(sorted, shape);
      kernel.has_duration_classes = kernel.has_duration_classes || shape.class_medians_ns.size() > 1;
      if (shape.durations.count >= kMinDispatchesForShapeCv) {
        weighted_cv += shape.durations.cv * shape.durations.total_ns;
        weighted_class_cv += shape.within_class_cv * shape.durations.total_ns;
        weight += shape.durations.total_ns;
      }
      kernel.shapes.push_back(shape);
    }
    std::sort(kernel.shapes.begin(), kernel.shapes.end(), [](const LaunchShape& a, const LaunchShape& b) {
      return a.durations.total_ns > b.durations.total_ns;
    });
    kernel.within_shape_cv = weight > 0 ? weighted_cv / weight : 0;
    kernel.within_shape_stability = classify_cv(kernel.within_shape_cv);
    kernel.within_class_cv = weight > 0 ? weighted_class_cv / weight : 0;
    kernel.stability = classify_cv(kernel.within_class_cv);
  }
}

}  // namespace rpl::analysis
