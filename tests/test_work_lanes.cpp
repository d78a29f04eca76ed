// The report's lanes (report/work_lanes.hpp): visited in one pass over the trace (issue 32: no per-node lists),
// each lane's nodes come in the order of the sorted lists; a trace whose lanes are out of order is refused by the
// pass and sorted in the lists.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "report/work_lanes.hpp"
#include "testing/in_memory_trace.hpp"

namespace rpl {
namespace {

using analysis::NodeKind;
using analysis::NodeRef;

// Each lane's nodes sorted by (start, end, dispatches before copies, index): what WorkLane::nodes promises.
std::vector<std::vector<NodeRef>> by_sort(const Trace& t, const report::WorkLanes& lanes) {
  std::vector<std::vector<NodeRef>> out(lanes.lanes().size());
  for (Index i = 0; i < t.dispatches.size(); ++i) out[lanes.lane_of({NodeKind::Dispatch, i})].push_back({NodeKind::Dispatch, i});
  for (Index i = 0; i < t.copies.size(); ++i) out[lanes.lane_of({NodeKind::Copy, i})].push_back({NodeKind::Copy, i});
  for (auto& lane : out)
    std::sort(lane.begin(), lane.end(), [&](NodeRef a, NodeRef b) {
      const TimeNs sa = report::node_start(t, a), sb = report::node_start(t, b);
      if (sa != sb) return sa < sb;
      const TimeNs ea = report::node_end(t, a), eb = report::node_end(t, b);
      if (ea != eb) return ea < eb;
      return a.kind != b.kind ? a.kind < b.kind : a.index < b.index;
    });
  return out;
}

test::InMemoryTrace three_streams(bool in_order) {
  test::InMemoryTrace t;
  t.add_process(1);
  for (int s = 0; s < 3; ++s) t.trace.streams.push_back(Stream{0, s, ""});
  const Index k = t.add_symbol("k");
  std::mt19937 rng(3);
  std::vector<TimeNs> at(3, 0), last_end(3, 0);
  for (int i = 0; i < 3000; ++i) {
    const Index s = rng() % 3;
    const TimeNs start = at[s] + (rng() % 4 == 0 ? 0 : rng() % 50);  // ties and zero lengths, in (start, end) order
    const TimeNs end = std::max(start + static_cast<TimeNs>(rng() % 30), start == at[s] ? last_end[s] : start);
    if (rng() % 5 == 0) {
      MemoryCopy c;
      c.process = 0;
      c.stream = s;
      c.start = start;
      c.end = end;
      c.kind = t.trace.strings.intern("MEMORY_COPY_HOST_TO_DEVICE");
      t.trace.copies.push_back(c);
    } else {
      t.add_dispatch(k, start, end)->stream = s;
    }
    at[s] = start;
    last_end[s] = end;
  }
  if (!in_order) t.add_dispatch(k, 5, 6)->stream = 1;  // stream 1 goes back in time
  return t;
}

TEST(WorkLanes, OnePassGivesEachLaneInItsOrder) {
  const test::InMemoryTrace t = three_streams(true);
  const report::WorkLanes lists(t.trace), counted(t.trace, false);
  const auto sorted = by_sort(t.trace, lists);
  std::vector<std::vector<NodeRef>> visited(counted.lanes().size());
  EXPECT_TRUE(counted.for_each_by_lane([&](std::size_t lane, NodeRef n) { visited[lane].push_back(n); }));
  ASSERT_EQ(lists.lanes().size(), 3u);
  for (std::size_t i = 0; i < visited.size(); ++i) {
    EXPECT_TRUE(visited[i] == sorted[i]) << "lane " << i;
    EXPECT_TRUE(lists.lanes()[i].nodes == sorted[i]) << "lane " << i;
    EXPECT_EQ(counted.lanes()[i].count, sorted[i].size());
    EXPECT_TRUE(counted.lanes()[i].nodes.empty());
  }
}

TEST(WorkLanes, AnOutOfOrderLaneIsRefusedByThePassAndSortedInTheLists) {
  const test::InMemoryTrace t = three_streams(false);
  const report::WorkLanes lists(t.trace), counted(t.trace, false);
  std::size_t calls = 0;
  EXPECT_FALSE(counted.for_each_by_lane([&](std::size_t, NodeRef) { ++calls; }));
  EXPECT_EQ(calls, 0u);
  const auto sorted = by_sort(t.trace, lists);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_TRUE(lists.lanes()[i].nodes == sorted[i]) << "lane " << i;
    EXPECT_EQ(counted.lanes()[i].count, sorted[i].size());
  }
}

}  // namespace
}  // namespace rpl
