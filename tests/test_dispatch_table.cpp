// DispatchTable: the columns give back every field as written, whatever the values' ranges (issue 32).
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "model/trace.hpp"

namespace rpl {
namespace {

Dispatch make(int64_t i) {
  Dispatch d;
  d.start = 1'000'000'000'000 + i * 1000;
  d.end = d.start + 100 + i;
  d.dispatch_id = i + 1;
  d.correlation_id = 5000 + i;
  d.process = static_cast<Index>(i % 2);
  d.symbol = static_cast<Index>(i % 7);
  d.agent = static_cast<Index>(i % 3);
  d.queue = static_cast<Index>(i % 4);
  d.stream = i % 5 == 0 ? kNoIndex : static_cast<Index>(i % 5);
  d.thread = static_cast<uint32_t>(100 + i % 2);
  d.grid[0] = static_cast<uint32_t>(256 * (1 + i % 3));
  d.block[0] = 64;
  d.block[2] = 2;
  d.lds_bytes = static_cast<uint32_t>(i % 2 * 4096);
  d.scratch_bytes = 16;
  return d;
}

void expect_same(const Dispatch& a, const Dispatch& b) {
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.dispatch_id, b.dispatch_id);
  EXPECT_EQ(a.correlation_id, b.correlation_id);
  EXPECT_EQ(a.process, b.process);
  EXPECT_EQ(a.symbol, b.symbol);
  EXPECT_EQ(a.agent, b.agent);
  EXPECT_EQ(a.queue, b.queue);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.thread, b.thread);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(a.grid[k], b.grid[k]);
    EXPECT_EQ(a.block[k], b.block[k]);
  }
  EXPECT_EQ(a.lds_bytes, b.lds_bytes);
  EXPECT_EQ(a.scratch_bytes, b.scratch_bytes);
}

TEST(DispatchTable, GivesBackEveryFieldAndUsesTwelveBytesPerDispatchInTimeOrder) {
  DispatchTable t;
  std::vector<Dispatch> expected;
  constexpr int64_t n = 100'000;
  t.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    expected.push_back(make(i));
    t.push_back(expected.back());
  }
  ASSERT_EQ(t.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); i += 997) expect_same(t[i], expected[i]);
  std::size_t i = 0;
  for (const Dispatch& d : t) {
    if (i % 1009 == 0) expect_same(d, expected[i]);
    ++i;
  }
  EXPECT_EQ(i, expected.size());
  EXPECT_EQ(t.end_of(77), expected[77].end);
  EXPECT_EQ(t.symbol_of(77), expected[77].symbol);
  EXPECT_EQ(t.process_of(77), expected[77].process);
  // 12 bytes per dispatch in the columns (start offset, duration, launch; the ids are consecutive), plus a
  // block base per 4096 starts and the interned launches (i mod 420 decides a dispatch's symbol, placement and
  // shape: 420 of them), placements (60) and shapes (6).
  EXPECT_LE(t.bytes(), 12 * static_cast<std::size_t>(n) + 65536);
  EXPECT_GE(t.bytes(), 12 * static_cast<std::size_t>(n));
}

TEST(DispatchTable, IrregularTracesKeepEveryValueWithMoreBytes) {
  // Ids that are not affine in the index, starts out of order with gaps of minutes, durations over 32 bits
  // and negative ones: every value back, at more bytes per dispatch.
  DispatchTable t;
  std::vector<Dispatch> expected;
  constexpr int64_t n = 20'000;
  for (int64_t i = 0; i < n; ++i) {
    Dispatch d = make(i);
    d.dispatch_id = (i * 7919) % n;                         // a permutation
    d.correlation_id = i * i;                               // gaps that grow
    d.start = (i % 3 == 0 ? 60'000'000'000 : 0) + (n - i) * 1'000'000;  // backwards, a minute apart
    d.end = d.start + (i % 11 == 0 ? -3 : i % 13 == 0 ? (int64_t{1} << 34) : 500);
    expected.push_back(d);
    t.push_back(d);
  }
  for (int64_t i = 0; i < n; ++i) expect_same(t[static_cast<std::size_t>(i)], expected[static_cast<std::size_t>(i)]);
  EXPECT_EQ(t.start_of(3), expected[3].start);
  EXPECT_EQ(t.duration_of(11), -3);
  EXPECT_GT(t.bytes(), 20 * static_cast<std::size_t>(n));
}

TEST(DispatchTable, KeepsValuesOutsideTheNarrowRanges) {
  DispatchTable t;
  Dispatch a = make(0), b = make(1), c = make(2);
  b.end = b.start + (int64_t{1} << 33);                // a duration over 32 bits
  c.end = c.start - 5;                                // a negative one (the analyses report it)
  b.dispatch_id = std::numeric_limits<int64_t>::max();  // ids that do not fit 32-bit offsets
  c.correlation_id = std::numeric_limits<int64_t>::min();
  for (const Dispatch& d : {a, b, c}) t.push_back(d);
  expect_same(t[0], a);
  expect_same(t[1], b);
  expect_same(t[2], c);
  // The widened columns still take and give back narrow values.
  Dispatch d = make(3);
  t.push_back(d);
  expect_same(t[3], d);
  EXPECT_GE(t.bytes(), 4 * 40u);
}

TEST(DispatchTable, SetEditAndResizeReplaceWhatTheySay) {
  DispatchTable t;
  for (int64_t i = 0; i < 10; ++i) t.push_back(make(i));
  Dispatch d = make(42);
  d.end = d.start + (int64_t{1} << 40);
  t.set(4, d);
  expect_same(t[4], d);
  t.edit(4)->end = d.start + 7;  // back to a short duration
  EXPECT_EQ(t[4].end, d.start + 7);
  {
    auto e = t.edit(5);
    e->stream = 9;
    e->grid[1] = 3;
  }
  EXPECT_EQ(t[5].stream, 9u);
  EXPECT_EQ(t[5].grid[1], 3u);
  expect_same(t[6], make(6));
  t.edit(7)->end = t[7].start + (int64_t{1} << 35);
  t.resize(7);  // drops the long duration of dispatch 7 with it
  t.push_back(make(7));
  expect_same(t[7], make(7));
  t.resize(9);
  expect_same(t[8], Dispatch{});
  t.clear();
  EXPECT_TRUE(t.empty());
  t.push_back(make(1));
  expect_same(t.front(), make(1));
}

}  // namespace
}  // namespace rpl
