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

// Splits sorted `v` into duration classes (see LaunchShape) and fills the shape's class fields.
void duration_classes(std::vector<double>& v, LaunchShape& shape) {
  // Durations are differences of integer timestamps (>= 0, never NaN): for such doubles the bit patterns
  // order as the values, and the sorted sequence is unique.
  if (std::all_of(v.begin(), v.end(), [](double d) { return d >= 0 && !std::signbit(d); }))
    radix_sort_by_key(v, [](double d) { return std::bit_cast<uint64_t>(d); });
  else
    std::sort(v.begin(), v.end());
  std::vector<std::pair<std::size_t, std::size_t>> classes;  // [begin, end)
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= v.size(); ++i)
    if (i == v.size() || v[i] > v[i - 1] * kDurationClassJump) {
      classes.emplace_back(begin, i);
      begin = i;
    }
  const std::size_t min_size =
      std::max(kMinClassDispatches, static_cast<std::size_t>(kMinClassShare * static_cast<double>(v.size())));
  // Merge small classes into the nearer neighbour (by duration) until every class is big enough.
  for (bool merged = true; merged && classes.size() > 1;) {
    merged = false;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      if (classes[c].second - classes[c].first >= min_size) continue;
      std::size_t into;
      if (c == 0) into = 1;
      else if (c + 1 == classes.size()) into = c - 1;
      else into = v[classes[c].first] - v[classes[c - 1].second - 1] <= v[classes[c + 1].first] - v[classes[c].second - 1]
                      ? c - 1 : c + 1;
      const std::size_t lo = std::min(c, into), hi = std::max(c, into);
      classes[lo] = {classes[lo].first, classes[hi].second};
      classes.erase(classes.begin() + static_cast<std::ptrdiff_t>(hi));
      merged = true;
      break;
    }
  }
  double weighted = 0, weight = 0;
  for (auto [b, e] : classes) {
    std::vector<double> part(v.begin() + static_cast<std::ptrdiff_t>(b), v.begin() + static_cast<std::ptrdiff_t>(e));
    const DurationStats s = compute_duration_stats(part);
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

  std::vector<std::map<ShapeKey, std::vector<double>>> by_kernel(stats.kernels.size());
  const DispatchTable& dispatches = trace.dispatches;
  for (std::size_t i = 0; i < dispatches.size(); ++i) {  // by column: symbol, shape and duration only
    const Index symbol = dispatches.symbol_of(i);
    if (symbol >= kernel_of_symbol.size() || kernel_of_symbol[symbol] < 0) continue;
    by_kernel[static_cast<std::size_t>(kernel_of_symbol[symbol])][key_of(dispatches.shape_of(i))].push_back(
        static_cast<double>(dispatches.duration_of(i)));
  }
  for (std::size_t k = 0; k < stats.kernels.size(); ++k) {
    KernelStats& kernel = stats.kernels[k];
    kernel.shapes.clear();
    double weighted_cv = 0, weighted_class_cv = 0, weight = 0;
    kernel.has_duration_classes = false;
    for (auto& [key, durations] : by_kernel[k]) {
      LaunchShape shape;
      std::tie(shape.grid[0], shape.grid[1], shape.grid[2], shape.block[0], shape.block[1], shape.block[2],
               shape.lds_bytes) = key;
      shape.durations = compute_duration_stats(durations);
      duration_classes(durations, shape);
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
