// The recorded cross-stream edges (analysis/cross_stream_edges.hpp), built from hand-made SyncOps.
#include <gtest/gtest.h>

#include <chrono>

#include "analysis/cross_stream_edges.hpp"
#include "testing/visual_sample.hpp"

using rpl::Index;
using rpl::SyncKind;
using rpl::SyncOp;
using rpl::SyncSource;
using rpl::Trace;
using rpl::analysis::DagEdge;
using rpl::analysis::EdgeKind;
using rpl::analysis::NodeKind;
using rpl::analysis::recorded_cross_stream_edges;

namespace {

// One process, `streams` streams (rocpd ids 1..n), one kernel symbol.
Trace make_trace(int streams) {
  Trace t;
  t.processes.push_back({"g", "a.db", 1, 0, "h", "app"});
  for (int s = 0; s < streams; ++s) t.streams.push_back({0, s + 1, ""});
  rpl::KernelSymbol k;
  k.process = 0;
  k.display_name = t.strings.intern("k");
  t.symbols.push_back(k);
  return t;
}

Index add(Trace& t, Index stream, rpl::TimeNs start, rpl::TimeNs end, int64_t corr, uint32_t thread = 1) {
  rpl::Dispatch d;
  d.process = 0;
  d.symbol = 0;
  d.stream = stream;
  d.start = start;
  d.end = end;
  d.correlation_id = corr;
  d.thread = thread;
  d.dispatch_id = static_cast<int64_t>(t.dispatches.size());
  t.dispatches.push_back(d);
  return static_cast<Index>(t.dispatches.size() - 1);
}

void op(Trace& t, SyncKind kind, Index stream, uint64_t event, int64_t corr, uint32_t thread = 1,
        SyncSource source = SyncSource::HostApi, rpl::TimeNs start = 0, rpl::TimeNs end = 0) {
  SyncOp o;
  o.kind = kind;
  o.source = source;
  o.process = 0;
  o.thread = thread;
  o.stream = stream;
  o.event = event;
  o.correlation_id = corr;
  o.start = start;
  o.end = end;
  t.sync_ops.push_back(o);
}

// Edges as (from dispatch, to dispatch, kind) for compact expectations.
std::vector<std::tuple<Index, Index, EdgeKind>> simple(const std::vector<DagEdge>& edges) {
  std::vector<std::tuple<Index, Index, EdgeKind>> out;
  for (const auto& e : edges) {
    EXPECT_EQ(e.from.kind, NodeKind::Dispatch);
    EXPECT_EQ(e.to.kind, NodeKind::Dispatch);
    out.emplace_back(e.from.index, e.to.index, e.kind);
  }
  return out;
}

using Edges = std::vector<std::tuple<Index, Index, EdgeKind>>;

}  // namespace

TEST(DagEdges, SampleTraceHasTheEventWaitAndTheHostSync) {
  // See visual_sample.hpp: d1 -> d3 (record e7 after d1, wait on stream 2 before d3), d3 -> d2 (stream
  // sync of stream 2, then d2 submitted by the same thread).
  auto r = rpl::test::visual_sample_results();
  EXPECT_EQ(simple(recorded_cross_stream_edges(r.trace)),
            (Edges{{3, 2, EdgeKind::HostSync}, {1, 3, EdgeKind::EventWait}}));  // sorted by target
}

TEST(DagEdges, NoSyncOpsNoEdges) {
  Trace t = make_trace(2);
  add(t, 0, 0, 10, 1);
  add(t, 1, 5, 15, 2);
  EXPECT_TRUE(recorded_cross_stream_edges(t).empty());
  EXPECT_TRUE(recorded_cross_stream_edges(Trace{}).empty());
}

TEST(DagEdges, WaitUsesTheLatestRecordBeforeIt) {
  Trace t = make_trace(2);
  Index a0 = add(t, 0, 0, 10, 1);
  op(t, SyncKind::EventRecord, 0, 9, 2);  // captures a0
  Index a1 = add(t, 0, 10, 20, 3);
  op(t, SyncKind::EventRecord, 0, 9, 4);  // re-recorded: captures a1
  op(t, SyncKind::StreamWaitEvent, 1, 9, 5);
  Index b0 = add(t, 1, 20, 30, 6);
  op(t, SyncKind::EventRecord, 0, 9, 7);  // after the wait: irrelevant to it
  (void)a0;
  EXPECT_EQ(simple(recorded_cross_stream_edges(t)), (Edges{{a1, b0, EdgeKind::EventWait}}));
}

TEST(DagEdges, WaitWithoutRecordOrOnAnEmptyCaptureOrSameStreamGivesNothing) {
  Trace t = make_trace(2);
  op(t, SyncKind::StreamWaitEvent, 1, 5, 1);  // event 5 never recorded
  op(t, SyncKind::EventRecord, 0, 6, 2);      // stream 0 has no work yet: captures nothing
  op(t, SyncKind::StreamWaitEvent, 1, 6, 3);
  Index a = add(t, 0, 0, 10, 4);
  add(t, 1, 0, 10, 5);
  op(t, SyncKind::EventRecord, 0, 7, 6);      // captures a
  op(t, SyncKind::StreamWaitEvent, 0, 7, 7);  // same stream: stream order already
  add(t, 0, 10, 20, 8);
  (void)a;
  EXPECT_TRUE(recorded_cross_stream_edges(t).empty());
}

TEST(DagEdges, DeviceSynchronizeJoinsEveryStreamToTheThreadsNextWork) {
  Trace t = make_trace(2);
  Index a0 = add(t, 0, 0, 10, 1);
  Index b0 = add(t, 1, 0, 20, 2);
  op(t, SyncKind::DeviceSynchronize, rpl::kNoIndex, 0, 3);
  Index a1 = add(t, 0, 30, 40, 4);
  Index b1 = add(t, 1, 30, 40, 5);
  // The sync is one join node; its arrows come from the work it waited for that ended last (b0, at 20):
  // b0 -> a1, while b0 -> b1 is stream order (dropped). (Before join nodes: also a0 -> b1.)
  (void)a0;
  (void)b1;
  EXPECT_EQ(simple(recorded_cross_stream_edges(t)), (Edges{{b0, a1, EdgeKind::HostSync}}));
}

TEST(DagEdges, HostSyncBindsOnlyTheSameThreadsLaterWork) {
  Trace t = make_trace(2);
  Index a0 = add(t, 0, 0, 10, 1, /*thread=*/1);
  op(t, SyncKind::StreamSynchronize, 0, 0, 2, /*thread=*/1);
  add(t, 1, 20, 30, 3, /*thread=*/2);              // another thread: not ordered by the sync
  Index b1 = add(t, 1, 30, 40, 4, /*thread=*/1);   // the syncing thread's next work on stream 1
  add(t, 1, 40, 50, 5, /*thread=*/1);              // later still: only the first gets the edge
  EXPECT_EQ(simple(recorded_cross_stream_edges(t)), (Edges{{a0, b1, EdgeKind::HostSync}}));
}

TEST(DagEdges, EventSynchronizeWaitsForTheCapturedWork) {
  Trace t = make_trace(2);
  Index a0 = add(t, 0, 0, 10, 1);
  op(t, SyncKind::EventRecord, 0, 3, 2);
  add(t, 0, 10, 100, 3);  // after the record: not waited for
  op(t, SyncKind::EventSynchronize, rpl::kNoIndex, 3, 4);
  Index b0 = add(t, 1, 20, 30, 5);
  EXPECT_EQ(simple(recorded_cross_stream_edges(t)), (Edges{{a0, b0, EdgeKind::HostSync}}));
}

TEST(DagEdges, WorkWithUnknownCorrelationIsNotPlacedAgainstHostOps) {
  Trace t = make_trace(2);
  add(t, 0, 0, 10, 0);  // correlation unknown
  op(t, SyncKind::EventRecord, 0, 1, 2);
  op(t, SyncKind::StreamWaitEvent, 1, 1, 3);
  add(t, 1, 20, 30, 4);
  EXPECT_TRUE(recorded_cross_stream_edges(t).empty());
}

TEST(DagEdges, GpuBarriersAreOrderedByGpuTime) {
  Trace t = make_trace(2);
  add(t, 0, 0, 10, 0);
  Index a1 = add(t, 0, 10, 50, 0);   // last to start on stream 0 before the signal at 55
  add(t, 0, 60, 70, 0);
  add(t, 1, 0, 5, 0);                // before the wait
  Index b1 = add(t, 1, 80, 90, 0);   // first to start at or after the wait (started 58, ended 78)
  op(t, SyncKind::EventRecord, 0, 4, 0, 1, SyncSource::GpuBarrier, 55, 55);
  op(t, SyncKind::StreamWaitEvent, 1, 4, 0, 1, SyncSource::GpuBarrier, 58, 78);
  // A signal after the wait ended does not satisfy it; another event is unrelated.
  op(t, SyncKind::EventRecord, 0, 4, 0, 1, SyncSource::GpuBarrier, 79, 79);
  op(t, SyncKind::StreamWaitEvent, 1, 8, 0, 1, SyncSource::GpuBarrier, 58, 78);
  EXPECT_EQ(simple(recorded_cross_stream_edges(t)), (Edges{{a1, b1, EdgeKind::Barrier}}));
}

TEST(DagEdges, OnePairIsListedOnceWithTheFirstKind) {
  Trace t = make_trace(2);
  Index a0 = add(t, 0, 0, 10, 1);
  op(t, SyncKind::EventRecord, 0, 2, 2);
  op(t, SyncKind::StreamWaitEvent, 1, 2, 3);
  op(t, SyncKind::StreamSynchronize, 0, 0, 4);
  Index b0 = add(t, 1, 20, 30, 5);  // both the wait and the host sync order it after a0
  EXPECT_EQ(simple(recorded_cross_stream_edges(t)), (Edges{{a0, b0, EdgeKind::EventWait}}));
}

TEST(DagEdges, CopiesTakePart) {
  Trace t = make_trace(2);
  rpl::MemoryCopy c;
  c.process = 0;
  c.stream = 0;
  c.start = 0;
  c.end = 10;
  c.correlation_id = 1;
  c.thread = 1;
  t.copies.push_back(c);
  op(t, SyncKind::EventRecord, 0, 2, 2);
  op(t, SyncKind::StreamWaitEvent, 1, 2, 3);
  Index b0 = add(t, 1, 20, 30, 4);
  auto edges = recorded_cross_stream_edges(t);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].from.kind, NodeKind::Copy);
  EXPECT_EQ(edges[0].from.index, 0u);
  EXPECT_EQ(edges[0].to.index, b0);
}

// Scale: 500k dispatches, 250k record/wait pairs on one reused event, a device sync every 1000 pairs.
// Each pair k gives a(k) -> b(k); each device sync after pair k is a join drawn from the work it waited
// for that ended last, b(k), to a(k+1) (b(k) -> b(k+1) is stream order). Before join nodes each sync also
// gave a(k) -> b(k+1): 2 arrows per sync.
TEST(DagEdges, ScalesToManyOps) {
  Trace t = make_trace(2);
  const int pairs = 250'000;
  int64_t corr = 0;
  for (int k = 0; k < pairs; ++k) {
    add(t, 0, 10 * k, 10 * k + 4, ++corr);
    op(t, SyncKind::EventRecord, 0, 1, ++corr);
    op(t, SyncKind::StreamWaitEvent, 1, 1, ++corr);
    add(t, 1, 10 * k + 5, 10 * k + 9, ++corr);
    if (k % 1000 == 999 && k + 1 < pairs) op(t, SyncKind::DeviceSynchronize, rpl::kNoIndex, 0, ++corr);
  }
  auto t0 = std::chrono::steady_clock::now();
  auto edges = recorded_cross_stream_edges(t);
  RecordProperty("seconds", std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  // 250000 event waits + 249 device syncs x 1 cross arrow.
  EXPECT_EQ(edges.size(), 250'000u + 249u);
}
