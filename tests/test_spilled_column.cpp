// SpilledColumn: values moved to a temporary file come back in order, forward and backward, in chunks
// (issue 32: the critical path's earliest finishes and topological order).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/spilled_column.hpp"

namespace rpl {
namespace {

std::vector<uint32_t> values(std::size_t n) {
  std::vector<uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<uint32_t>(i * 2654435761u);
  return v;
}

// Reads every value back through the chunk callbacks, checking each chunk's first index.
template <typename Column>
std::vector<uint32_t> read_back(const Column& c, bool backward) {
  std::vector<uint32_t> out(c.size());
  std::size_t seen = 0, last_first = backward ? c.size() : 0;
  auto chunk = [&](std::size_t first, std::span<const uint32_t> part) {
    EXPECT_TRUE(backward ? first + part.size() == last_first : first == last_first);
    last_first = backward ? first : first + part.size();
    for (std::size_t k = 0; k < part.size(); ++k) out[first + k] = part[k];
    seen += part.size();
  };
  EXPECT_TRUE(backward ? c.for_each_chunk_backward(chunk) : c.for_each_chunk(chunk));
  EXPECT_EQ(seen, c.size());
  return out;
}

TEST(SpilledColumn, SpilledValuesComeBackForwardAndBackward) {
  const std::vector<uint32_t> expected = values(200'003);  // several chunks, the last one partial
  SpilledColumn<uint32_t> c{std::vector<uint32_t>(expected)};
  EXPECT_TRUE(c.spilled());
  EXPECT_EQ(read_back(c, false), expected);
  EXPECT_EQ(read_back(c, true), expected);
  EXPECT_EQ(read_back(c, false), expected);  // readable again after a backward pass
}

TEST(SpilledColumn, KeptInMemoryWhenAskedOrEmpty) {
  const std::vector<uint32_t> expected = values(1000);
  SpilledColumn<uint32_t> kept(std::vector<uint32_t>(expected), false);
  EXPECT_FALSE(kept.spilled());
  EXPECT_EQ(read_back(kept, false), expected);
  EXPECT_EQ(read_back(kept, true), expected);
  SpilledColumn<uint32_t> empty;
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(read_back(empty, true).empty());
  SpilledColumn<uint32_t> spilled_empty{std::vector<uint32_t>()};
  EXPECT_TRUE(read_back(spilled_empty, false).empty());
  EXPECT_TRUE(read_back(spilled_empty, true).empty());
}

// Appended value by value (the streamed critical path's earliest finishes and slacks): the same values back, and a
// backward pass that releases the file as it reads still delivers every value.
TEST(SpilledColumn, AppendedValuesComeBack) {
  const std::vector<uint32_t> expected = values(150'001);
  for (bool spill : {true, false}) {
    SpilledColumn<uint32_t> c = SpilledColumn<uint32_t>::appender(spill);
    for (uint32_t v : expected) c.push_back(v);
    c.seal();
    EXPECT_EQ(c.spilled(), spill);
    EXPECT_EQ(c.size(), expected.size());
    EXPECT_EQ(read_back(c, false), expected);
    EXPECT_EQ(read_back(c, true), expected);
    std::vector<uint32_t> released(c.size());
    std::size_t seen = 0;
    EXPECT_TRUE(c.for_each_chunk_backward(
        [&](std::size_t first, std::span<const uint32_t> part) {
          for (std::size_t k = 0; k < part.size(); ++k) released[first + k] = part[k];
          seen += part.size();
        },
        true));
    EXPECT_EQ(seen, expected.size());
    EXPECT_EQ(released, expected);
  }
  SpilledColumn<uint32_t> none = SpilledColumn<uint32_t>::appender();
  none.seal();
  EXPECT_TRUE(read_back(none, true).empty());
}

}  // namespace
}  // namespace rpl
