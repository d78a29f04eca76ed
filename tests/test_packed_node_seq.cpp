// PackedNodeSeq (node ids in about a byte each) gives back exactly the ids pushed, at any position, through a
// Reader and through partition_point; OrderBuilder gives the sorted order of what was added (issue 32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "analysis/packed_node_seq.hpp"

namespace rpl::analysis::dag {
namespace {

PackedNodeSeq pack(const std::vector<NodeId>& ids) {
  PackedNodeSeq seq;
  seq.reserve(ids.size());
  for (NodeId v : ids) seq.push_back(v);
  return seq;
}

// Ids of every kind of difference: small steps (one byte), steps of 2^13 to 2^31 (two to five bytes), the largest
// ids and zero next to each other (the widest differences), repeats.
std::vector<NodeId> mixed_ids(std::size_t n, std::mt19937_64& rng) {
  std::vector<NodeId> ids;
  NodeId v = 1000;
  for (std::size_t i = 0; i < n; ++i) {
    switch (rng() % 8) {
      case 0: v = static_cast<NodeId>(rng()); break;
      case 1: v = (i & 1) ? 0xfffffffeu : 0u; break;
      case 2: v += static_cast<NodeId>(rng() % (1u << 20)); break;
      case 3: v -= static_cast<NodeId>(rng() % 100); break;
      case 4: break;  // the same id again
      default: v += static_cast<NodeId>(rng() % 16); break;
    }
    ids.push_back(v);
  }
  return ids;
}

TEST(PackedNodeSeq, GivesBackEveryIdAtEveryPosition) {
  std::mt19937_64 rng(3);
  for (std::size_t n : {0u, 1u, 63u, 64u, 65u, 128u, 1000u, 70000u}) {
    const std::vector<NodeId> ids = mixed_ids(n, rng);
    const PackedNodeSeq seq = pack(ids);
    ASSERT_EQ(seq.size(), n);
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(seq[k], ids[k]) << "n=" << n << " k=" << k;
    // Readers from block starts, block ends and everywhere between, across blocks and chunks.
    for (std::size_t from : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, n / 2, n}) {
      if (from > n) continue;
      PackedNodeSeq::Reader r(seq, from);
      for (std::size_t k = from; k < n; ++k) ASSERT_EQ(r.next(), ids[k]) << "n=" << n << " from=" << from;
    }
  }
}

TEST(PackedNodeSeq, TakesAboutAByteForInterleavedStreams) {
  // One stream's nodes among eight: each id about 8 above the previous.
  std::vector<NodeId> ids;
  for (NodeId v = 5; ids.size() < 1000000; v += 7 + static_cast<NodeId>(ids.size() % 3)) ids.push_back(v);
  const PackedNodeSeq seq = pack(ids);
  EXPECT_LT(seq.bytes(), ids.size() * 13 / 10);  // 1 byte each + 12 per block of 64, against 4 for NodeId
  EXPECT_EQ(seq[999999], ids[999999]);
}

TEST(PackedNodeSeq, PartitionPointIsStdPartitionPointOnEveryRange) {
  std::mt19937_64 rng(11);
  for (std::size_t n : {1u, 2u, 64u, 65u, 200u, 3000u}) {
    std::vector<NodeId> ids(n);
    for (NodeId& v : ids) v = static_cast<NodeId>(rng() % (n * 3));
    std::sort(ids.begin(), ids.end());
    const PackedNodeSeq seq = pack(ids);
    for (int trial = 0; trial < 300; ++trial) {
      std::size_t b = rng() % (n + 1), e = rng() % (n + 1);
      if (b > e) std::swap(b, e);
      const NodeId t = static_cast<NodeId>(rng() % (n * 3 + 2));
      for (bool strict : {true, false}) {
        auto before = [&](NodeId v) { return strict ? v < t : v <= t; };
        const std::size_t want =
            static_cast<std::size_t>(std::partition_point(ids.begin() + b, ids.begin() + e, before) - ids.begin());
        ASSERT_EQ(seq.partition_point(b, e, before), want) << "n=" << n << " [" << b << "," << e << ") t=" << t;
      }
    }
  }
}

std::vector<NodeId> order_of(const std::vector<NodeId>& added) {
  auto less = [](NodeId a, NodeId b) { return (a % 1000) != (b % 1000) ? a % 1000 < b % 1000 : a < b; };
  OrderBuilder<decltype(less)> builder(less);
  for (NodeId v : added) builder.add(v);
  const PackedNodeSeq seq = builder.finish();
  std::vector<NodeId> out;
  PackedNodeSeq::Reader r(seq, 0);
  for (std::size_t i = 0; i < seq.size(); ++i) out.push_back(r.next());
  std::vector<NodeId> want = added;
  std::sort(want.begin(), want.end(), less);
  EXPECT_EQ(out, want);
  return out;
}

TEST(OrderBuilder, GivesTheSortedOrderFromRunsOrFromAnyOrder) {
  std::mt19937_64 rng(5);
  order_of({});
  order_of({42});
  // Up to eight ascending runs (merged without a plain array), then nine and many (sorted).
  for (std::size_t runs : {1u, 2u, 8u, 9u, 50u}) {
    std::vector<NodeId> added;
    for (std::size_t r = 0; r < runs; ++r) {
      std::vector<NodeId> run(100);
      for (std::size_t i = 0; i < run.size(); ++i) run[i] = static_cast<NodeId>(1000 * (r * 100 + i) + i % 1000);
      added.insert(added.end(), run.begin(), run.end());
    }
    order_of(added);
  }
  std::vector<NodeId> shuffled(5000);
  for (std::size_t i = 0; i < shuffled.size(); ++i) shuffled[i] = static_cast<NodeId>(i * 7919);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  order_of(shuffled);
}

}  // namespace
}  // namespace rpl::analysis::dag
