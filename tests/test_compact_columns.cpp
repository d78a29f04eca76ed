// The compact columns behind DispatchTable (issue 32): every value comes back as written, whether the values
// are regular (few bytes) or not (more bytes, never a wrong value).
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "model/compact_columns.hpp"

namespace rpl::detail {
namespace {

template <typename Column>
void expect_values(const Column& c, const std::vector<int64_t>& expected) {
  ASSERT_EQ(c.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(c[i], expected[i]) << "at " << i;
}

TEST(AffineInt64Column, ConsecutiveIdsTakeNoBytesPerValue) {
  AffineInt64Column c;
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 100'000; ++i) expected.push_back(7 + 3 * i);
  for (int64_t v : expected) c.push_back(v);
  expect_values(c, expected);
  EXPECT_FALSE(c.dense());
  EXPECT_EQ(c.bytes(), 0u);
}

TEST(AffineInt64Column, KeepsIdsThatAreNotAffineAndBecomesDenseWhenTheyAreMany) {
  AffineInt64Column c;
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 10'000; ++i) expected.push_back(i % 100 == 99 ? -i : 1000 + i);  // a few exceptions
  expected.push_back(std::numeric_limits<int64_t>::max());
  expected.push_back(std::numeric_limits<int64_t>::min());
  for (int64_t v : expected) c.push_back(v);
  expect_values(c, expected);
  EXPECT_FALSE(c.dense());
  EXPECT_GT(c.bytes(), 0u);
  // Random ids: the exceptions pass their limit and every value moves to a dense column.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 5000; ++i) expected.push_back(static_cast<int64_t>(rng()));
  for (std::size_t i = 10'002; i < expected.size(); ++i) c.push_back(expected[i]);
  EXPECT_TRUE(c.dense());
  expect_values(c, expected);
}

TEST(AffineInt64Column, IdsRisingBySmallStepsTakeTwoBytes) {
  // Correlation ids with API calls between the launches: steps of 1 to 40, a jump of a million now and then.
  AffineInt64Column c;
  std::vector<int64_t> expected;
  std::mt19937_64 rng(11);
  int64_t id = 5'000'000'000;
  for (int i = 0; i < 200'000; ++i) {
    id += 1 + static_cast<int64_t>(rng() % 40) + (i % 50'000 == 49'999 ? 1'000'000 : 0);
    expected.push_back(i % 1000 == 500 ? -id : id);  // a few far out of line
  }
  c.reserve(expected.size());
  for (int64_t v : expected) c.push_back(v);
  expect_values(c, expected);
  EXPECT_TRUE(c.in_steps());
  EXPECT_LT(c.bytes(), 3 * expected.size());  // 4-byte offsets would take 4 per value
  c.set(7, 1), expected[7] = 1;
  c.set(8, expected[9] - 1), expected[8] = expected[9] - 1;
  c.resize(150'000), expected.resize(150'000);
  expect_values(c, expected);
  // Steps too large for 16 bits everywhere: the values move on to 4-byte offsets, still all there.
  for (int i = 0; i < 100'000; ++i) expected.push_back(expected.back() + 70'000 + static_cast<int64_t>(rng() % 3));
  for (std::size_t i = 150'000; i < expected.size(); ++i) c.push_back(expected[i]);
  EXPECT_FALSE(c.in_steps());
  EXPECT_TRUE(c.dense());
  expect_values(c, expected);
}

TEST(AffineInt64Column, ConsecutiveIdsWithJumpsTakeUnderOneByte) {
  // Correlation ids of launches with two API calls between every 50 (event record and wait), a large jump and a
  // negative one now and then: held as a stride with jumps, every value given back.
  AffineInt64Column c;
  std::vector<int64_t> expected;
  int64_t id = 1'000'000'007;
  for (int i = 0; i < 300'000; ++i) {
    id += 1 + (i % 50 == 49 ? 2 : 0) + (i % 70'000 == 1 ? 5'000'000'000 : 0) - (i % 90'001 == 3 ? 77 : 0);
    expected.push_back(id);
  }
  c.reserve(expected.size());
  for (int64_t v : expected) c.push_back(v);
  EXPECT_TRUE(c.in_jumps());
  expect_values(c, expected);
  EXPECT_LT(c.bytes(), expected.size() * 7 / 10);  // 2 bytes each as steps
  // Truncated inside a block and at a block's end, then appended to: the jumps kept are those before the cut.
  for (std::size_t n : {std::size_t{250'017}, std::size_t{200'000}, std::size_t{64}, std::size_t{1}}) {
    c.resize(n), expected.resize(n);
    expect_values(c, expected);
    EXPECT_TRUE(c.in_jumps());
    for (int i = 0; i < 130; ++i) expected.push_back(expected.back() + (i % 7 == 0 ? 3 : 1));
    for (std::size_t i = n; i < expected.size(); ++i) c.push_back(expected[i]);
    expect_values(c, expected);
  }
  // Growing by resize appends zeros (jumps).
  c.resize(expected.size() + 3), expected.resize(expected.size() + 3, 0);
  expect_values(c, expected);
  // Setting a value to what it is changes nothing; a new value moves the column on to steps, all values kept.
  c.set(5, expected[5]);
  EXPECT_TRUE(c.in_jumps());
  c.set(5, expected[5] + 9), expected[5] += 9;
  EXPECT_FALSE(c.in_jumps());
  expect_values(c, expected);
}

TEST(BlockJumpColumn, JumpsAtEveryPositionOfABlockAndAWrappingStride) {
  BlockJumpColumn c;
  c.set_stride(std::numeric_limits<int64_t>::max());  // wraps on every step
  std::vector<int64_t> expected;
  std::mt19937_64 rng(9);
  int64_t v = 17;
  for (int i = 0; i < 64 * 5; ++i) {
    const bool jump = i % 67 == 0 || (i >= 64 && i < 128) || rng() % 9 == 0;  // block 1: all jumps
    v = jump ? static_cast<int64_t>(rng()) : static_cast<int64_t>(static_cast<uint64_t>(v) + uint64_t{0x7fffffffffffffff});
    expected.push_back(v);
  }
  for (int64_t x : expected) c.push_back(x);
  expect_values(c, expected);
  c.truncate(100), expected.resize(100);
  expect_values(c, expected);
  c.push_back(5), expected.push_back(5);
  expect_values(c, expected);
}

TEST(AffineInt64Column, IdsJumpingAtMostValuesMoveOnToSteps) {
  AffineInt64Column c;
  std::vector<int64_t> expected;
  for (int i = 0; i < 50'000; ++i) expected.push_back(int64_t{i} * 3 + (i % 3 == 0 ? 1 : 0));  // a jump every third
  for (int64_t x : expected) c.push_back(x);
  EXPECT_FALSE(c.in_jumps());
  EXPECT_TRUE(c.in_steps());
  expect_values(c, expected);
}

TEST(BlockStepColumn, ValuesAtTheEdgesOfTheOffsetsRange) {
  BlockStepColumn c;
  const std::vector<int64_t> expected = {100'000, 100'000 + 32'766, 100'000 + 32'767, 100'000 - 32'768,
                                         100'000 - 32'769, std::numeric_limits<int64_t>::min(), 0, 100'001};
  for (int64_t v : expected) c.push_back(v);
  expect_values(c, expected);
  EXPECT_EQ(c.listed(), 4u);  // 32767 would be the listed mark; -32769, INT64_MIN and 0 are out of range
}

TEST(AffineInt64Column, SetAndResizeKeepTheOtherValues) {
  AffineInt64Column c;
  std::vector<int64_t> expected = {10, 20, 30, 40, 50};
  for (int64_t v : expected) c.push_back(v);
  c.set(2, -1), expected[2] = -1;
  expect_values(c, expected);
  c.set(2, 30), expected[2] = 30;  // back on the line: no exception left
  expect_values(c, expected);
  EXPECT_EQ(c.bytes() > 0, true);  // the exception list keeps its capacity
  c.resize(1), expected.resize(1);
  c.push_back(11), expected.push_back(11);  // a new stride from here
  c.push_back(12), expected.push_back(12);
  expect_values(c, expected);
  c.resize(5), expected.resize(5, 0);
  expect_values(c, expected);
  c.clear();
  EXPECT_EQ(c.size(), 0u);
  // A stride that wraps around the int64 range still gives back the values.
  const int64_t big = std::numeric_limits<int64_t>::max() - 1;
  c.push_back(big), c.push_back(std::numeric_limits<int64_t>::min() + 5), c.push_back(0);
  expect_values(c, {big, std::numeric_limits<int64_t>::min() + 5, 0});
}

TEST(BlockTimeColumn, StartsInTraceOrderTakeFourBytes) {
  BlockTimeColumn c;
  std::vector<int64_t> expected;
  std::mt19937_64 rng(5);
  int64_t t = 1'700'000'000'000'000'000;  // an epoch time in ns, as ROCm writes them
  for (int i = 0; i < 100'000; ++i) {
    t += static_cast<int64_t>(rng() % 20'000);
    expected.push_back(t - static_cast<int64_t>(rng() % 100'000));  // interleaved streams: not sorted
  }
  c.reserve(expected.size());
  for (int64_t v : expected) c.push_back(v);
  expect_values(c, expected);
  EXPECT_EQ(c.listed(), 0u);
  EXPECT_LE(c.bytes(), 4 * expected.size() + 8 * (expected.size() / 4096 + 1) + 64);
}

TEST(BlockTimeColumn, HugeGapsNegativeAndExtremeValuesAreListedApart) {
  BlockTimeColumn c;
  std::vector<int64_t> expected = {5'000'000'000, 5'000'000'001, 4'000'000'000, 9'000'000'000,  // gaps > 2 s
                                   -7,  std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                                   5'000'000'000 + (int64_t{1} << 31) - 2, 5'000'000'000 + (int64_t{1} << 31) - 1,
                                   5'000'000'000 - (int64_t{1} << 31)};
  for (int64_t i = 0; i < 10'000; ++i) expected.push_back(5'000'000'000 + i * 1'000'000);  // 10 s in 1 ms steps
  for (int64_t v : expected) c.push_back(v);
  expect_values(c, expected);
  EXPECT_GT(c.listed(), 0u);
  // Set moves values in and out of the list; resize drops what it cuts.
  c.set(3, 5'000'000'002), expected[3] = 5'000'000'002;
  c.set(1, -1), expected[1] = -1;
  expect_values(c, expected);
  c.resize(4), expected.resize(4);
  expect_values(c, expected);
  c.resize(5000), expected.resize(5000, 0);
  expect_values(c, expected);
  c.clear();
  EXPECT_TRUE(c.empty());
  c.push_back(3);
  expect_values(c, {3});
}

TEST(SparseOverrides, KeepsIndicesSortedWhateverTheOrderOfWrites) {
  SparseOverrides<int64_t> o;
  o.set(10, 1), o.set(2, 2), o.set(7, 3), o.set(2, 4);
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(*o.find(2), 4);
  EXPECT_EQ(o.find(3), nullptr);
  o.erase(7);
  EXPECT_EQ(o.find(7), nullptr);
  o.truncate(5);
  EXPECT_EQ(o.size(), 1u);
  EXPECT_EQ(o.items().front().first, 2u);
}

}  // namespace
}  // namespace rpl::detail
