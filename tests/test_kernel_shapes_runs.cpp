// Launch shapes from the sorted durations held as runs of equal values (issue 32: no per-dispatch buffer): every
// shape's statistics and each duration class's are those compute_duration_stats gives for the same values.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "analysis/kernel_shapes.hpp"
#include "analysis/kernel_stats.hpp"
#include "testing/in_memory_trace.hpp"

namespace rpl {
namespace {

void expect_stats(const analysis::DurationStats& got, std::vector<double> values) {
  const analysis::DurationStats want = analysis::compute_duration_stats(values);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.total_ns, want.total_ns);
  EXPECT_EQ(got.mean_ns, want.mean_ns);
  EXPECT_EQ(got.median_ns, want.median_ns);
  EXPECT_EQ(got.min_ns, want.min_ns);
  EXPECT_EQ(got.max_ns, want.max_ns);
  EXPECT_EQ(got.stddev_ns, want.stddev_ns);
  EXPECT_EQ(got.cv, want.cv);
}

// Two kernels, three shapes; shape A's durations fall into three well separated clusters (each over 5% of the
// shape's dispatches) plus a tiny one that joins its neighbour, with many repeated values, more than a merge chunk.
TEST(KernelShapesRuns, StatisticsAndClassesEqualThoseOfTheValues) {
  test::InMemoryTrace t;
  t.add_process(1);
  const Index gemm = t.add_symbol("gemm"), relu = t.add_symbol("relu");
  std::mt19937 rng(5);
  std::vector<double> a, a_low, a_mid, a_high, b, c;
  TimeNs at = 0;
  auto add = [&](Index symbol, uint32_t grid, TimeNs d, std::vector<double>& shape, std::vector<double>* cluster) {
    t.add_dispatch(symbol, at, at + d)->grid[0] = grid;
    at += d + 5;
    shape.push_back(static_cast<double>(d));
    if (cluster) cluster->push_back(static_cast<double>(d));
  };
  for (int i = 0; i < 60000; ++i) {
    const unsigned r = rng() % 10;
    if (r < 4) add(gemm, 256, 10'000 + rng() % 50, a, &a_low);
    else if (r < 7) add(gemm, 256, 30'000 + rng() % 400, a, &a_mid);
    else add(gemm, 256, 90'000 + rng() % 3000, a, &a_high);
    add(gemm, 512, 40'000 + rng() % 7, b, nullptr);
    if (i % 3 == 0) add(relu, 256, 1'000 + rng() % 2000, c, nullptr);
  }
  add(gemm, 256, 200'000, a, &a_high);  // a lone outlier: joins the nearest class
  auto stats = analysis::compute_kernel_stats(t.trace);
  analysis::compute_kernel_shapes(t.trace, stats);
  ASSERT_EQ(stats.kernels.size(), 2u);
  const analysis::KernelStats& g = stats.kernels[0].name == "gemm" ? stats.kernels[0] : stats.kernels[1];
  const analysis::KernelStats& r = stats.kernels[0].name == "gemm" ? stats.kernels[1] : stats.kernels[0];
  ASSERT_EQ(g.shapes.size(), 2u);
  const analysis::LaunchShape& sa = g.shapes[0].grid[0] == 256 ? g.shapes[0] : g.shapes[1];
  const analysis::LaunchShape& sb = g.shapes[0].grid[0] == 256 ? g.shapes[1] : g.shapes[0];
  expect_stats(sa.durations, a);
  expect_stats(sb.durations, b);
  ASSERT_EQ(r.shapes.size(), 1u);
  expect_stats(r.shapes[0].durations, c);
  ASSERT_EQ(sa.class_medians_ns.size(), 3u);
  double weighted = 0, weight = 0;
  std::size_t k = 0;
  for (std::vector<double>* cluster : {&a_low, &a_mid, &a_high}) {
    std::sort(cluster->begin(), cluster->end());
    const analysis::DurationStats s = analysis::compute_duration_stats(*cluster);
    EXPECT_EQ(sa.class_medians_ns[k++], s.median_ns);
    weighted += s.cv * s.total_ns;
    weight += s.total_ns;
  }
  EXPECT_EQ(sa.within_class_cv, weighted / weight);
  EXPECT_TRUE(g.has_duration_classes);
  EXPECT_EQ(sb.class_medians_ns.size(), 1u);
  EXPECT_DOUBLE_EQ(sb.within_class_cv, sb.durations.cv);  // squares summed in sorted order: the last bits may differ
}

}  // namespace
}  // namespace rpl
