// Host synchronisations as join nodes (issue 19 item 9): the schedule, critical path and what-if answers
// equal those of the former pairwise form (an edge per waited-for / released pair, kept behind
// DagOptions::pairwise_host_sync for this comparison), and the DAG grows linearly in records.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "analysis/cross_stream_edges.hpp"

namespace rpl::analysis {
namespace {

// A dispatch of process 0 (symbol 0 unless changed), queue = stream; ids in order.
DispatchTable::Edit launch(Trace& t, Index stream, TimeNs start, TimeNs end, int64_t corr) {
  Dispatch d;
  d.process = 0;
  d.stream = d.queue = stream;
  d.start = start;
  d.end = end;
  d.correlation_id = corr;
  d.dispatch_id = static_cast<int64_t>(t.dispatches.size() + 1);
  t.dispatches.push_back(d);
  return t.dispatches.edit(t.dispatches.size() - 1);
}

void device_sync(Trace& t, int64_t corr, TimeNs start = 0, TimeNs end = 0) {
  SyncOp op;
  op.kind = SyncKind::DeviceSynchronize;
  op.process = 0;
  op.correlation_id = corr;
  op.start = start;
  op.end = end;
  t.sync_ops.push_back(op);
}

// A random, self-consistent timeline of one process: kernels launched by one or two host threads on a few
// streams, with device/stream/event synchronisations and event record/wait pairs. The simulated host
// blocks in each synchronisation until what it waits for has ended, and a waiting stream does not start
// before the recorded work ends, so the recorded dependencies hold in the timestamps.
class RandomTimeline {
 public:
  RandomTimeline(unsigned seed, unsigned streams, unsigned steps, unsigned threads) : rng_(seed) {
    trace.processes.push_back(Process{});
    Agent gpu;
    gpu.process = 0;
    gpu.is_gpu = true;
    trace.agents.push_back(gpu);
    for (const char* name : {"gemm", "softmax", "copy_kernel"}) {
      KernelSymbol k;
      k.process = 0;
      k.display_name = k.mangled_name = trace.strings.intern(name);
      trace.symbols.push_back(k);
    }
    stream_end_.assign(streams, 0);
    wait_until_.assign(streams, 0);
    for (unsigned s = 0; s < streams; ++s) trace.streams.push_back(Stream{0, static_cast<int64_t>(s), ""});
    for (unsigned i = 0; i < steps; ++i) step(threads);
  }

  Trace trace;

 private:
  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }

  void sync(SyncKind kind, Index stream, uint64_t event, uint32_t thread, TimeNs release) {
    SyncOp op;
    op.kind = kind;
    op.process = 0;
    op.stream = stream;
    op.event = event;
    op.thread = thread;
    op.correlation_id = corr_++;
    op.start = host_;
    host_ = std::max(host_ + 1, release + 1 + static_cast<TimeNs>(pick(5)));
    op.end = host_;
    trace.sync_ops.push_back(op);
  }

  void step(unsigned threads) {
    const uint32_t thread = 1 + pick(threads);
    const unsigned streams = static_cast<unsigned>(stream_end_.size());
    const unsigned what = pick(100);
    const Index s = pick(streams);
    if (what < 60) {
      const TimeNs start = std::max({stream_end_[s], wait_until_[s], host_ + 2}) + pick(20);
      auto d = launch(trace, s, start, start + 5 + pick(200), corr_++);
      d->agent = 0;
      d->thread = thread;
      d->symbol = pick(3);
      stream_end_[s] = d->end;
      host_ += 1 + pick(3);
    } else if (what < 70) {
      sync(SyncKind::DeviceSynchronize, kNoIndex, 0, thread, *std::max_element(stream_end_.begin(), stream_end_.end()));
    } else if (what < 78) {
      sync(SyncKind::StreamSynchronize, s, 0, thread, stream_end_[s]);
    } else if (what < 88) {
      const uint64_t event = 1 + pick(3);
      recorded_[event] = stream_end_[s];
      sync(SyncKind::EventRecord, s, event, thread, 0);
    } else if (what < 95) {
      const uint64_t event = 1 + pick(3);
      wait_until_[s] = std::max(wait_until_[s], recorded_[event]);
      sync(SyncKind::StreamWaitEvent, s, event, thread, 0);
    } else {
      const uint64_t event = 1 + pick(3);
      sync(SyncKind::EventSynchronize, kNoIndex, event, thread, recorded_[event]);
    }
  }

  std::mt19937 rng_;
  std::vector<TimeNs> stream_end_, wait_until_;
  TimeNs recorded_[4] = {};
  TimeNs host_ = 0;
  int64_t corr_ = 1;
};

void expect_same_schedule(const Trace& t, const std::string& label) {
  DagOptions pairwise;
  pairwise.pairwise_host_sync = true;
  const CriticalPathResult a = analyze_critical_path(t), b = analyze_critical_path(t, pairwise);
  EXPECT_EQ(a.node_count, b.node_count) << label;
  EXPECT_EQ(a.path, b.path) << label;
  EXPECT_EQ(a.path_links, b.path_links) << label;
  EXPECT_DOUBLE_EQ(a.critical_path_ns, b.critical_path_ns) << label;
  EXPECT_DOUBLE_EQ(a.critical_path_busy_ns, b.critical_path_busy_ns) << label;
  EXPECT_DOUBLE_EQ(a.modeled_span_ns, b.modeled_span_ns) << label;
  EXPECT_EQ(a.earliest_start, b.earliest_start) << label;
  EXPECT_EQ(a.slack, b.slack) << label;
  EXPECT_EQ(a.edges.stream_order, b.edges.stream_order) << label;
  EXPECT_EQ(a.edges.event_wait, b.edges.event_wait) << label;
  EXPECT_EQ(b.joins.total(), 0u) << label;

  const std::vector<WhatIf> scenarios{{"gemm", 0.5}, {"softmax", 3.0}};
  const auto wa = run_what_if(t, scenarios), wb = run_what_if(t, scenarios, pairwise);
  ASSERT_EQ(wa.size(), wb.size()) << label;
  for (std::size_t i = 0; i < wa.size(); ++i) {
    EXPECT_DOUBLE_EQ(wa[i].baseline_ns, wb[i].baseline_ns) << label;
    EXPECT_DOUBLE_EQ(wa[i].predicted_ns, wb[i].predicted_ns) << label << " scenario " << i;
  }
}

TEST(DagJoin, SameAnswersAsPairwiseEdgesOnRandomTimelines) {
  std::size_t with_joins = 0, host_sync_links = 0;
  for (unsigned seed = 1; seed <= 300; ++seed) {
    const unsigned streams = 1 + seed % 6, threads = 1 + seed % 2, steps = 20 + seed % 60;
    RandomTimeline g(seed, streams, steps, threads);
    expect_same_schedule(g.trace, "seed " + std::to_string(seed));
    const CriticalPathResult r = analyze_critical_path(g.trace);
    with_joins += r.joins.of(JoinReason::HostSync) > 0;
    host_sync_links += static_cast<std::size_t>(std::count(r.path_links.begin(), r.path_links.end(), EdgeKind::HostSync));
    if (HasFailure()) return;
  }
  // The comparison exercised joins, and paths through them.
  EXPECT_GT(with_joins, 250u);
  EXPECT_GT(host_sync_links, 100u);
}

// s0: A[0,100) c1, s1: B[0,40) c2, deviceSync c3, s0: C[120,130) c4, s1: D[125,135) c5.
// One join J: A -> J, B -> J, J -> C, J -> D: 4 host_sync edges (the pairwise form had A->D and B->C).
TEST(DagJoin, DeviceSynchronizeIsOneJoinNode) {
  RandomTimeline empty(1, 2, 0, 1);
  Trace t = empty.trace;
  launch(t, 0, 0, 100, 1);
  launch(t, 1, 0, 40, 2);
  launch(t, 0, 120, 130, 4);
  launch(t, 1, 125, 135, 5);
  device_sync(t, 3);
  const CriticalPathResult r = analyze_critical_path(t);
  EXPECT_EQ(r.node_count, 4u);
  EXPECT_EQ(r.joins.of(JoinReason::HostSync), 1u);
  EXPECT_EQ(r.edges.host_sync, 4u);
  EXPECT_EQ(r.path, (std::vector<NodeRef>{{NodeKind::Dispatch, 0}, {NodeKind::Dispatch, 3}}));
  EXPECT_EQ(r.path_links, std::vector<EdgeKind>{EdgeKind::HostSync});
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 135);
  EXPECT_EQ(r.slack[1], 60);  // B: LF = LS(D) - g(D) = 125 - 25 = 100, EF 40
  // The arrows drawn: from A (the work the host waited for last) to D; A -> C is stream order.
  const auto arrows = recorded_cross_stream_edges(t);
  ASSERT_EQ(arrows.size(), 1u);
  EXPECT_EQ(arrows[0].from, (NodeRef{NodeKind::Dispatch, 0}));
  EXPECT_EQ(arrows[0].to, (NodeRef{NodeKind::Dispatch, 3}));
  EXPECT_EQ(arrows[0].kind, EdgeKind::HostSync);
}

// The shape of issue 19's report: many streams of little work each and a device synchronisation after
// every few launches. Pairwise, each sync joined every stream's last work to every stream's next work
// (streams x streams edges per sync); as joins, edges and nodes grow with records.
Trace many_streams_many_syncs(unsigned streams, unsigned syncs, unsigned launches_per_sync) {
  Trace t;
  t.processes.push_back(Process{});
  KernelSymbol k;
  k.process = 0;
  k.display_name = k.mangled_name = t.strings.intern("k");
  t.symbols.push_back(k);
  for (unsigned s = 0; s < streams; ++s) t.streams.push_back(Stream{0, static_cast<int64_t>(s), ""});
  TimeNs host = 0;
  int64_t corr = 1;
  unsigned next_stream = 0;
  for (unsigned i = 0; i < syncs; ++i) {
    TimeNs latest = host;
    for (unsigned j = 0; j < launches_per_sync; ++j) {
      const TimeNs end = host + 110 + (corr * 37) % 50;
      launch(t, next_stream++ % streams, host + 10, end, corr++);
      latest = std::max(latest, end);
      host += 2;
    }
    device_sync(t, corr++, host, latest + 5);
    host = latest + 5;
  }
  return t;
}

TEST(DagJoin, EdgesAndNodesGrowLinearlyWithRecords) {
  struct Size {
    unsigned streams, syncs;
    std::size_t edges, joins;
  };
  std::vector<Size> sizes{{250, 250, 0, 0}, {500, 500, 0, 0}, {1000, 1000, 0, 0}, {2000, 2000, 0, 0}};
  for (Size& s : sizes) {
    const Trace t = many_streams_many_syncs(s.streams, s.syncs, 2);
    const CriticalPathResult r = analyze_critical_path(t);
    s.edges = r.edges.total();
    s.joins = r.joins.total();
    const std::size_t records = t.dispatches.size() + t.sync_ops.size();
    EXPECT_EQ(s.joins, s.syncs);
    // Each dispatch: its stream-order edge, one edge into the join after it, one from the join before it;
    // each join: one edge from the previous one.
    EXPECT_LE(s.edges, 3 * t.dispatches.size() + t.sync_ops.size()) << s.streams;
    EXPECT_LE(s.edges, 2 * records);
  }
  // Doubling streams and syncs doubles the DAG (records double), within rounding.
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    const double ratio = static_cast<double>(sizes[i].edges) / static_cast<double>(sizes[i - 1].edges);
    EXPECT_GT(ratio, 1.9);
    EXPECT_LT(ratio, 2.1);
  }
  // The former pairwise form on the smallest size: quadratic, already many times larger.
  DagOptions pairwise;
  pairwise.pairwise_host_sync = true;
  const CriticalPathResult p = analyze_critical_path(many_streams_many_syncs(250, 250, 2), pairwise);
  EXPECT_GT(p.edges.host_sync, 50 * sizes[0].edges);
}

// Issue 19's input: 2,000 streams of one dispatch and 1,000 device synchronisations.
TEST(DagJoin, TwoThousandStreamsOfOneDispatchAndAThousandSyncs) {
  Trace t = many_streams_many_syncs(2000, 1000, 2);
  const CriticalPathResult r = analyze_critical_path(t);
  EXPECT_EQ(r.node_count, 2000u);
  EXPECT_EQ(r.joins.of(JoinReason::HostSync), 1000u);
  EXPECT_LE(r.edges.total(), 5000u);
  EXPECT_FALSE(r.path.empty());
}

}  // namespace
}  // namespace rpl::analysis
