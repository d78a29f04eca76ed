// Exact medians per group by repeated passes (analysis/group_medians.hpp, issue 32): equal to a sort's.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include "analysis/group_medians.hpp"

namespace {

using rpl::analysis::GroupMedians;

struct Value {
  std::size_t group;
  int64_t value;
};

double sorted_median(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? static_cast<double>(v[n / 2]) : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2.0;
}

// Checks count, min, max and median of every group against a sort, and counts the passes made.
void expect_exact(const std::vector<Value>& values, std::size_t groups, std::size_t collect_budget) {
  GroupMedians m(groups, collect_budget);
  int passes = 0;
  m.compute([&](auto add) {
    ++passes;
    for (const Value& v : values) add(v.group, v.value);
  });
  std::vector<std::vector<int64_t>> by_group(groups);
  for (const Value& v : values) by_group[v.group].push_back(v.value);
  for (std::size_t g = 0; g < groups; ++g) {
    ASSERT_EQ(m.count(g), by_group[g].size()) << "group " << g;
    if (by_group[g].empty()) continue;
    EXPECT_EQ(m.min(g), *std::min_element(by_group[g].begin(), by_group[g].end())) << "group " << g;
    EXPECT_EQ(m.max(g), *std::max_element(by_group[g].begin(), by_group[g].end())) << "group " << g;
    EXPECT_EQ(m.median(g), sorted_median(by_group[g])) << "group " << g;
  }
  EXPECT_LE(passes, 70);
}

TEST(GroupMedians, RandomGroupsCollectedAtOnce) {
  std::mt19937_64 rng(1);
  std::vector<Value> values;
  for (int i = 0; i < 5000; ++i) values.push_back({rng() % 7, static_cast<int64_t>(rng() % 100000)});
  expect_exact(values, 9, 1 << 20);  // groups 7 and 8 stay empty
}

TEST(GroupMedians, HistogramsNarrowWideRanges) {
  // A budget of 8 values forces histogram passes over ranges up to the whole int64 range.
  std::mt19937_64 rng(2);
  std::vector<Value> values;
  for (int i = 0; i < 20000; ++i) values.push_back({rng() % 3, static_cast<int64_t>(rng())});
  values.push_back({0, std::numeric_limits<int64_t>::min()});
  values.push_back({1, std::numeric_limits<int64_t>::max()});
  for (int i = 0; i < 3000; ++i) values.push_back({3, static_cast<int64_t>(rng() % 1000) - 500});
  expect_exact(values, 4, 8);
}

TEST(GroupMedians, DuplicatesAndEvenCounts) {
  std::vector<Value> values;
  for (int i = 0; i < 10000; ++i) values.push_back({0, 42});         // one value, many times
  for (int i = 0; i < 5000; ++i) values.push_back({1, i % 2 ? 1 : 1'000'000'007});  // two values, even count
  for (int i = 0; i < 4; ++i) values.push_back({2, 10 * i});           // even: (10 + 20) / 2
  values.push_back({3, -5});                                            // a single value
  for (int i = 0; i < 6001; ++i) values.push_back({4, (i * 7919) % 6001 / 3});  // clustered duplicates
  expect_exact(values, 5, 16);
  expect_exact(values, 5, 1 << 20);
}

TEST(GroupMedians, NoValues) {
  GroupMedians m(3);
  int passes = 0;
  m.compute([&](auto) { ++passes; });
  EXPECT_EQ(passes, 1);
  EXPECT_EQ(m.count(1), 0u);
}

}  // namespace
