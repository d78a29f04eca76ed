// The linear-time sorts `analyze` uses in place of std::sort (issue 32) give std::sort's result.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "analysis/fast_sort.hpp"

namespace rpl::analysis {
namespace {

struct Item {
  int64_t key;
  uint32_t id;
  bool operator==(const Item&) const = default;
};
bool item_less(const Item& a, const Item& b) { return a.key != b.key ? a.key < b.key : a.id < b.id; }

// `runs` ascending runs back to back, keys drawn from [0, range): ties between runs are broken by id.
std::vector<Item> runs_of(std::size_t runs, std::size_t per_run, int64_t range, std::mt19937_64& rng) {
  std::vector<Item> out;
  uint32_t id = 0;
  for (std::size_t r = 0; r < runs; ++r) {
    std::vector<int64_t> keys(per_run);
    for (int64_t& k : keys) k = static_cast<int64_t>(rng() % static_cast<uint64_t>(range));
    std::sort(keys.begin(), keys.end());
    for (int64_t k : keys) out.push_back({k, id++});
  }
  return out;
}

TEST(SortRuns, MergesRunsAsStdSortWould) {
  std::mt19937_64 rng(7);
  for (std::size_t runs : {1u, 2u, 3u, 8u, 9u, 40u}) {
    for (int64_t range : {int64_t{5}, int64_t{1000000}}) {
      std::vector<Item> v = runs_of(runs, 500, range, rng), expected = v;
      std::sort(expected.begin(), expected.end(), item_less);
      sort_runs(v.begin(), v.end(), item_less);
      EXPECT_EQ(v, expected) << runs << " runs, keys below " << range;
    }
  }
}

TEST(SortRuns, EmptyOneAndShuffled) {
  std::vector<Item> none;
  sort_runs(none.begin(), none.end(), item_less);
  EXPECT_TRUE(none.empty());
  std::vector<Item> one{{3, 0}};
  sort_runs(one.begin(), one.end(), item_less);
  EXPECT_EQ(one, (std::vector<Item>{{3, 0}}));
  std::mt19937_64 rng(11);
  std::vector<Item> v = runs_of(1, 3000, 100, rng), expected = v;
  std::shuffle(v.begin(), v.end(), rng);  // thousands of runs: the std::sort fallback
  sort_runs(v.begin(), v.end(), item_less);
  EXPECT_EQ(v, expected);
}

TEST(RadixSort, NonNegativeDoublesAsStdSort) {
  std::mt19937_64 rng(3);
  std::vector<double> v;
  for (int i = 0; i < 20000; ++i) {
    switch (i % 4) {
      case 0: v.push_back(static_cast<double>(rng() % 1000)); break;               // small integers, repeats
      case 1: v.push_back(static_cast<double>(rng() % (uint64_t{1} << 40))); break;  // wide integers
      case 2: v.push_back(std::ldexp(static_cast<double>(rng() % 1000), -20)); break; // fractions
      default: v.push_back(0.0);
    }
  }
  std::vector<double> expected = v;
  std::sort(expected.begin(), expected.end());
  radix_sort_by_key(v, [](double d) { return std::bit_cast<uint64_t>(d); });
  EXPECT_EQ(v, expected);
}

TEST(RadixSort, KeysInOrderAndNothingLost) {
  std::mt19937_64 rng(5);
  std::vector<Item> v;
  for (uint32_t i = 0; i < 50000; ++i) {
    // Timestamps near 2^62 (a large offset shared by all keys) with equal keys among them.
    v.push_back({(int64_t{1} << 62) + static_cast<int64_t>(rng() % 5000000), i});
  }
  v.push_back({std::numeric_limits<int64_t>::max(), 50000});
  v.push_back({0, 50001});
  std::vector<Item> expected = v;
  radix_sort_by_key(v, [](const Item& x) { return static_cast<uint64_t>(x.key); });
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), [](const Item& a, const Item& b) { return a.key < b.key; }));
  std::sort(v.begin(), v.end(), item_less);
  std::sort(expected.begin(), expected.end(), item_less);
  EXPECT_EQ(v, expected);
}

TEST(RadixSort, AllEqualAndTiny) {
  std::vector<Item> same(100, Item{42, 1});
  radix_sort_by_key(same, [](const Item& x) { return static_cast<uint64_t>(x.key); });
  EXPECT_EQ(same, std::vector<Item>(100, Item{42, 1}));
  std::vector<double> two{2.0, 1.0};
  radix_sort_by_key(two, [](double d) { return std::bit_cast<uint64_t>(d); });
  EXPECT_EQ(two, (std::vector<double>{1.0, 2.0}));
}

}  // namespace
}  // namespace rpl::analysis
