// Critical-path DAG and what-if re-timing over hand-built traces. Times are in ns; each test draws its
// timeline (one row per stream, [start, end) per op) and computes the expectations by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/critical_path.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::analysis {
namespace {

// Builds traces in memory: processes, their streams, kernels, copies and sync ops.
class TraceBuilder {
 public:
  Trace trace;

  Index process() {
    trace.processes.push_back(Process{});
    trace.processes.back().pid = static_cast<int64_t>(trace.processes.size());
    Agent gpu;
    gpu.process = static_cast<Index>(trace.processes.size() - 1);
    gpu.is_gpu = true;
    trace.agents.push_back(gpu);
    return gpu.process;
  }
  Index stream(Index process) {
    trace.streams.push_back(Stream{process, static_cast<int64_t>(trace.streams.size()), ""});
    return static_cast<Index>(trace.streams.size() - 1);
  }
  Index queue(Index process) {
    trace.queues.push_back(Queue{process, static_cast<int64_t>(trace.queues.size()), ""});
    return static_cast<Index>(trace.queues.size() - 1);
  }
  // Returns the dispatch index. The queue defaults to the stream's number (one queue per stream).
  Index kernel(const std::string& name, Index stream, TimeNs start, TimeNs end, int64_t corr = 0,
               uint32_t thread = 0, Index queue = kNoIndex) {
    Dispatch d;
    d.start = start;
    d.end = end;
    d.correlation_id = corr;
    d.thread = thread;
    d.stream = stream;
    d.process = stream < trace.streams.size() ? trace.streams[stream].process : 0;
    d.agent = d.process;  // one GPU agent per process, same index
    d.queue = queue != kNoIndex ? queue : stream;
    d.symbol = symbol(d.process, name);
    d.dispatch_id = static_cast<int64_t>(trace.dispatches.size() + 1);
    trace.dispatches.push_back(d);
    return static_cast<Index>(trace.dispatches.size() - 1);
  }
  Index copy(const std::string& kind, Index stream, TimeNs start, TimeNs end, int64_t corr = 0) {
    MemoryCopy c;
    c.start = start;
    c.end = end;
    c.correlation_id = corr;
    c.stream = stream;
    c.process = trace.streams[stream].process;
    c.kind = trace.strings.intern(kind);
    c.dst_agent = c.process;
    c.copy_id = static_cast<int64_t>(trace.copies.size() + 1);
    trace.copies.push_back(c);
    return static_cast<Index>(trace.copies.size() - 1);
  }
  void host_sync(SyncKind kind, Index process, Index stream, uint64_t event, int64_t corr, TimeNs start = 0,
                 uint32_t thread = 0) {
    SyncOp op;
    op.kind = kind;
    op.source = SyncSource::HostApi;
    op.process = process;
    op.stream = stream;
    op.event = event;
    op.correlation_id = corr;
    op.start = start;
    op.end = start;
    op.thread = thread;
    trace.sync_ops.push_back(op);
  }
  void gpu_barrier(SyncKind kind, Index process, Index stream, uint64_t event, TimeNs at) {
    SyncOp op;
    op.kind = kind;
    op.source = SyncSource::GpuBarrier;
    op.process = process;
    op.stream = stream;
    op.event = event;
    op.start = at;
    op.end = at;
    trace.sync_ops.push_back(op);
  }

 private:
  Index symbol(Index process, const std::string& name) {
    const Index id = trace.strings.intern(name);
    for (std::size_t s = 0; s < trace.symbols.size(); ++s)
      if (trace.symbols[s].process == process && trace.symbols[s].display_name == id) return static_cast<Index>(s);
    KernelSymbol k;
    k.process = process;
    k.display_name = k.mangled_name = id;
    trace.symbols.push_back(k);
    return static_cast<Index>(trace.symbols.size() - 1);
  }
};

NodeRef D(Index i) { return NodeRef{NodeKind::Dispatch, i}; }
NodeRef C(Index i) { return NodeRef{NodeKind::Copy, i}; }
// Node position in the result arrays: dispatches first, then copies.
std::size_t pos(const Trace& t, NodeRef r) { return r.kind == NodeKind::Dispatch ? r.index : t.dispatches.size() + r.index; }

std::vector<NodeRef> path_of(const CriticalPathResult& r) { return r.path; }

}  // namespace
// Readable failure messages: "D3" / "C0".
void PrintTo(const NodeRef& r, std::ostream* os) { *os << (r.kind == NodeKind::Dispatch ? "D" : "C") << r.index; }
void PrintTo(EdgeKind k, std::ostream* os) { *os << to_string(k); }
namespace {

TEST(CriticalPath, EmptyTraceGivesEmptyResult) {
  Trace t;
  CriticalPathResult r = analyze_critical_path(t);
  EXPECT_EQ(r.node_count, 0u);
  EXPECT_EQ(r.ordering, "none");
  EXPECT_TRUE(r.path.empty());
  EXPECT_EQ(r.critical_path_ns, 0);
  auto w = run_what_if(t, {{"k", 0.5}});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].matched_dispatches, 0u);
  EXPECT_EQ(w[0].predicted_ns, 0);
  EXPECT_EQ(w[0].speedup, 1);
}

// One stream, trace starting at 1000:
//   s0: A[1000,1010) . B[1015,1025) . C[1030,1050)
// gaps: A 0 (source, at trace start), B 1015-1010 = 5, C 1030-1025 = 5.
// EF (relative): A 10, B 10+5+10 = 25, C 25+5+20 = 50 -> makespan 50.
// path A,B,C: cp 50, busy 10+10+20 = 40, idle 10, serial 40, parallelism 40/50 = 0.8,
TEST(CriticalPath, SingleStreamChainWithGaps) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p);
  Index a = b.kernel("A", s0, 1000, 1010);
  Index bb = b.kernel("B", s0, 1015, 1025);
  Index c = b.kernel("C", s0, 1030, 1050);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.node_count, 3u);
  EXPECT_EQ(r.ordering, "queue");  // one stream only: queue order
  EXPECT_EQ(r.edges.stream_order, 2u);
  EXPECT_EQ(r.edges.total(), 2u);
  EXPECT_EQ(r.trace_start_ns, 1000);
  EXPECT_DOUBLE_EQ(r.wall_span_ns, 50);
  EXPECT_DOUBLE_EQ(r.modeled_span_ns, 50);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb), D(c)}));
  EXPECT_EQ(r.path_links, (std::vector<EdgeKind>{EdgeKind::StreamOrder, EdgeKind::StreamOrder}));
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 50);
  EXPECT_DOUBLE_EQ(r.critical_path_busy_ns, 40);
  EXPECT_DOUBLE_EQ(r.critical_path_idle_ns, 10);
  EXPECT_DOUBLE_EQ(r.serial_ns, 40);
  EXPECT_DOUBLE_EQ(r.parallelism, 0.8);
  EXPECT_EQ(r.earliest_start, (std::vector<TimeNs>{1000, 1015, 1030}));
  EXPECT_EQ(r.slack, (std::vector<TimeNs>{0, 0, 0}));
  EXPECT_EQ(r.on_path, (std::vector<uint8_t>{1, 1, 1}));
}

// Two independent streams:
//   s0: A[0,100)
//   s1: B[0,30) . C[40,60)
// No edge between them. EF: A 100, B 30, C 30+10+20 = 60; makespan 100; path = [A].
// Backward: LF(C) = 100 -> slack 100-60 = 40; LF(B) = LS(C) - g(C) = 80 - 10 = 70 -> slack 40.
// cp 100, busy 100, serial 150, parallelism 1.5.
TEST(CriticalPath, TwoIndependentStreamsLongerOneIsCritical) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100);
  b.kernel("B", s1, 0, 30);
  b.kernel("C", s1, 40, 60);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.ordering, "stream");
  EXPECT_EQ(r.edges.stream_order, 1u);
  EXPECT_EQ(r.edges.total(), 1u);
  EXPECT_EQ(path_of(r), std::vector<NodeRef>{D(a)});
  EXPECT_TRUE(r.path_links.empty());
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 100);
  EXPECT_DOUBLE_EQ(r.serial_ns, 150);
  EXPECT_DOUBLE_EQ(r.parallelism, 1.5);
  EXPECT_EQ(r.slack, (std::vector<TimeNs>{0, 40, 40}));
  EXPECT_EQ(r.on_path, (std::vector<uint8_t>{1, 0, 0}));
}

// Stream order follows queues when a process uses a single stream: two queues behind one stream are
// two chains. s0/q0: A[0,10) ; s0/q1: B[20,30) -> no edge at all.
TEST(CriticalPath, SingleStreamProcessOrdersByQueue) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p);
  Index q0 = b.queue(p), q1 = b.queue(p);
  b.kernel("A", s0, 0, 10, 0, 0, q0);
  Index bb = b.kernel("B", s0, 20, 30, 0, 0, q1);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.ordering, "queue");
  EXPECT_EQ(r.edges.total(), 0u);
  // B is released at its own start: path [B], cp = 30 - 20 = 10.
  EXPECT_EQ(path_of(r), std::vector<NodeRef>{D(bb)});
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 10);
  EXPECT_DOUBLE_EQ(r.critical_path_idle_ns, 0);
}

// Event record / stream wait, by correlation id (submission order):
//   s0: A[0,50) c1                      A2[50,100) c5
//   s1:                 B[60,80) c4
//   host: record(e7, s0) c2, wait(s1, e7) c3
// The record captures A (last op on s0 with corr < 2), not A2 (corr 5). The wait makes B (first op on s1
// with corr > 3) depend on A: edge A -> B. B's gap = 60 - 50 = 10.
// EF: A 50, A2 100, B 50+10+20 = 80. Path ends at A2 (EF 100): [A, A2]. B: LF 100 -> slack 20.
TEST(CriticalPath, EventRecordWaitMakesCrossStreamEdge) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 50, 1);
  Index a2 = b.kernel("A2", s0, 50, 100, 5);
  Index bb = b.kernel("B", s1, 60, 80, 4);
  b.host_sync(SyncKind::EventRecord, p, s0, 7, 2);
  b.host_sync(SyncKind::StreamWaitEvent, p, s1, 7, 3);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.event_wait, 1u);
  EXPECT_EQ(r.edges.stream_order, 1u);
  EXPECT_EQ(r.edges.inferred, 0u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(a2)}));
  EXPECT_EQ(r.slack[pos(b.trace, D(bb))], 20);

  // Make B the longer branch: B[60,180) -> EF(B) = 50+10+120 = 180, path [A, B] over the event edge,
  // cp 180 = busy 50+120 + idle 10.
  b.trace.dispatches.edit(bb)->end = 180;
  r = analyze_critical_path(b.trace);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb)}));
  EXPECT_EQ(r.path_links, std::vector<EdgeKind>{EdgeKind::EventWait});
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 180);
  EXPECT_DOUBLE_EQ(r.critical_path_busy_ns, 170);
  EXPECT_DOUBLE_EQ(r.critical_path_idle_ns, 10);
  EXPECT_EQ(r.slack[pos(b.trace, D(a2))], 80);  // LF(A2) = 180, EF 100
}

// The same timeline WITHOUT the record/wait: B starts 10 ns after A ends on another stream, but nothing
// recorded a dependency, so there is no edge (nothing inferred by default).
//   s0: A[0,50) A2[50,100)   s1: B[60,180)
// B is a source: gap 60, EF 180; path [B], cp = 180 - 60 = 120.
TEST(CriticalPath, NoRecordedDependencyMeansNoEdge) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  b.kernel("A", s0, 0, 50, 1);
  b.kernel("A2", s0, 50, 100, 5);
  Index bb = b.kernel("B", s1, 60, 180, 4);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.total(), 1u);  // A -> A2 only
  EXPECT_EQ(r.edges.event_wait + r.edges.host_sync + r.edges.barrier + r.edges.inferred, 0u);
  EXPECT_EQ(path_of(r), std::vector<NodeRef>{D(bb)});
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 120);
  EXPECT_EQ(r.slack[0], 80);  // A: LF = LS(A2) - g(A2) = 130 - 0 = 130, EF 50
  EXPECT_EQ(r.slack[1], 80);  // A2: LF = 180, EF 100
}

// A wait submitted before the record sees no captured work: no edge.
TEST(CriticalPath, WaitBeforeRecordGivesNoEdge) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  b.kernel("A", s0, 0, 50, 1);
  b.kernel("B", s1, 60, 80, 4);
  b.host_sync(SyncKind::StreamWaitEvent, p, s1, 7, 2);
  b.host_sync(SyncKind::EventRecord, p, s0, 7, 3);
  EXPECT_EQ(analyze_critical_path(b.trace).edges.event_wait, 0u);
}

// Stream synchronize by correlation id; the host thread 1 then launches on s1.
//   s0: A[0,100) c1
//   s1:               B[110,130) c3
//   host: streamSync(s0) c2 thread 1
// Edge A -> B (host sync): gap(B) = 10, path [A, B], cp 130, busy 120, idle 10.
TEST(CriticalPath, StreamSynchronizeByCorrelation) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100, 1, 1);
  Index bb = b.kernel("B", s1, 110, 130, 3, 1);
  b.host_sync(SyncKind::StreamSynchronize, p, s0, 0, 2, 100, 1);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);  // A -> join -> B (the sync is a join node)
  EXPECT_EQ(r.joins.of(JoinReason::HostSync), 1u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb)}));
  EXPECT_EQ(r.path_links, std::vector<EdgeKind>{EdgeKind::HostSync});
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 130);
  EXPECT_DOUBLE_EQ(r.critical_path_idle_ns, 10);
}

// Device synchronize: every stream's last op before it -> every stream's first op after it.
//   s0: A[0,100) c1                 C[120,130) c4
//   s1: B[0,40)  c2                   D[125,135) c5
//   host: deviceSync c3
// One join node J: A->J, B->J, J->C, J->D: host_sync = 4, stream_order = 2 (the pairwise form before join
// nodes had A->D and B->C, host_sync 2; the schedule is the same).
// EF: A 100, B 40, C max(100,40) + (120-100) + 10 = 130, D 100 + (125-100) + 10 = 135.
// Path: D <- A (EF 100 > 40): [A, D], cp 135, busy 110, idle 25.
TEST(CriticalPath, DeviceSynchronizeJoinsAllStreams) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100, 1);
  Index bb = b.kernel("B", s1, 0, 40, 2);
  b.kernel("C", s0, 120, 130, 4);
  Index d = b.kernel("D", s1, 125, 135, 5);
  b.host_sync(SyncKind::DeviceSynchronize, p, kNoIndex, 0, 3);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 4u);
  EXPECT_EQ(r.joins.of(JoinReason::HostSync), 1u);
  EXPECT_EQ(r.node_count, 4u);  // joins are not work nodes
  EXPECT_EQ(r.edges.stream_order, 2u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(d)}));
  EXPECT_EQ(r.path_links, std::vector<EdgeKind>{EdgeKind::HostSync});
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 135);
  EXPECT_DOUBLE_EQ(r.critical_path_busy_ns, 110);
  EXPECT_DOUBLE_EQ(r.critical_path_idle_ns, 25);
  // B: LF = min(LS(C) - g(C), LS(D) - g(D)) = min(125 - 20, 125 - 25) = 100 -> slack 60.
  EXPECT_EQ(r.slack[pos(b.trace, D(bb))], 60);
}

// Event synchronize: the host waits only for the event's captured work.
//   s0: A[0,100) c1   A2[100,200) c3
//   s1:                      B[150,170) c5
//   host: record(e1, s0) c2, eventSync(e1) c4
// A -> join -> B (not A2): host_sync 2. EF(B) = 100 + 50 + 20 = 170.
TEST(CriticalPath, EventSynchronizeWaitsForCapturedWork) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  b.kernel("A", s0, 0, 100, 1);
  b.kernel("A2", s0, 100, 200, 3);
  Index bb = b.kernel("B", s1, 150, 170, 5);
  b.host_sync(SyncKind::EventRecord, p, s0, 1, 2);
  b.host_sync(SyncKind::EventSynchronize, p, kNoIndex, 1, 4);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);
  // LF(B) = 200 -> slack 30; with the wrong source (A2, EF 200) EF(B) would be 220.
  EXPECT_EQ(r.earliest_start[pos(b.trace, D(bb))], 150);
  EXPECT_EQ(r.slack[pos(b.trace, D(bb))], 30);
}

// A host sync orders only the syncing thread's later work.
//   s0: A[0,100) c1 t1
//   s1:              B[110,120) c3 t2   C[130,140) c4 t1
//   host: streamSync(s0) c2 thread 1
// A -> join -> C (thread 1), not B (thread 2). B keeps no predecessor (a source).
TEST(CriticalPath, HostSyncFiltersByThread) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100, 1, 1);
  Index bb = b.kernel("B", s1, 110, 120, 3, 2);
  Index c = b.kernel("C", s1, 130, 140, 4, 1);
  b.host_sync(SyncKind::StreamSynchronize, p, s0, 0, 2, 100, 1);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);
  // C has preds B (EF 120) and A (EF 100): binding B -> path [B, C], cp 140 - 110 = 30.
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(bb), D(c)}));
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 30);

  // With B early (EF 45 < 100), A -> C binds: [A, C], link host_sync.
  TraceBuilder b2;
  p = b2.process();
  s0 = b2.stream(p), s1 = b2.stream(p);
  a = b2.kernel("A", s0, 0, 100, 1, 1);
  b2.kernel("B", s1, 40, 45, 3, 2);
  c = b2.kernel("C", s1, 130, 140, 4, 1);
  b2.host_sync(SyncKind::StreamSynchronize, p, s0, 0, 2, 100, 1);
  r = analyze_critical_path(b2.trace);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(c)}));
  EXPECT_EQ(r.path_links, std::vector<EdgeKind>{EdgeKind::HostSync});

  // Thread 0 (unknown) on the sync matches any thread: the edge goes to B, the first op after.
  b.trace.sync_ops[0].thread = 0;
  r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb), D(c)}));
}

// Without correlation ids the sync is placed by time: ops starting before its host start are before it.
//   s0: A[0,100)
//   s1: X[50,60)                B[110,120)
//   host: streamSync(s0) at host time 105, no correlation id
// A -> join -> B only (X started before the sync).
TEST(CriticalPath, HostSyncFallsBackToTimeWithoutCorrelation) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100);
  b.kernel("X", s1, 50, 60);
  Index bb = b.kernel("B", s1, 110, 120);
  b.host_sync(SyncKind::StreamSynchronize, p, s0, 0, 0, 105);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);
  // B: preds A (EF 100) and X (EF 60) -> binding A; gap 10; path [A, B].
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb)}));
}

// A stream mixing ops with and without correlation ids, and a sync with one: correlated ops compare by
// id, the others by GPU start against the sync's host start (105).
//   s0: A[0,100) c1   A0[100,103) no corr
//   s1:                               X[110,120) no corr   B[130,140) c3
//   host: streamSync(s0) c2 at 105
// Last op on s0 before the sync: A (c1 < 2) or A0 (100 < 105) -> the later, A0. First op on s1 after it:
// B (c3 > 2) or X (110 >= 105) -> the earlier, X. A0 -> join -> X; path [A, A0, X, B].
TEST(CriticalPath, HostSyncMixesCorrelatedAndUncorrelatedOps) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100, 1);
  Index a0 = b.kernel("A0", s0, 100, 103);
  Index x = b.kernel("X", s1, 110, 120);
  Index bb = b.kernel("B", s1, 130, 140, 3);
  b.host_sync(SyncKind::StreamSynchronize, p, s0, 0, 2, 105);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(a0), D(x), D(bb)}));
  EXPECT_EQ(r.path_links,
            (std::vector<EdgeKind>{EdgeKind::StreamOrder, EdgeKind::HostSync, EdgeKind::StreamOrder}));
}

// GPU barrier records are ordered by GPU time.
//   s0: A[0,50)  A2[60,200)
//   s1:               B[70,90)
//   barrier record(e3, s0) at 55 -> captures A (last op on s0 ending by 55)
//   barrier wait(s1, e3) at 65  -> B (first op on s1 starting at or after 65) depends on A
TEST(CriticalPath, GpuBarrierOrderedByGpuTime) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  b.kernel("A", s0, 0, 50);
  b.kernel("A2", s0, 60, 200);
  Index bb = b.kernel("B", s1, 70, 90);
  b.gpu_barrier(SyncKind::EventRecord, p, s0, 3, 55);
  b.gpu_barrier(SyncKind::StreamWaitEvent, p, s1, 3, 65);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.barrier, 1u);
  EXPECT_EQ(r.edges.event_wait, 0u);
  // B: gap 70 - 50 = 20, EF 50 + 20 + 20 = 90; LF 200 -> slack 110 (an edge from A2 would give EF 220).
  EXPECT_EQ(r.earliest_start[pos(b.trace, D(bb))], 70);
  EXPECT_EQ(r.slack[pos(b.trace, D(bb))], 110);

  // A record at 45 (before A ended) captures nothing: no edge.
  b.trace.sync_ops[0].start = b.trace.sync_ops[0].end = 45;
  EXPECT_EQ(analyze_critical_path(b.trace).edges.barrier, 0u);
}

// Copies are nodes and chain with kernels on their stream.
//   s0: H2D[0,40) . K[50,100) . D2H[110,130)
//   s1: other[0,20)
// Path [H2D, K, D2H]: cp 130, busy 40+50+20 = 110, idle 20.
// Contributions: K 50 (50/130), H2D 40 (40/130), D2H 20 (20/130).
TEST(CriticalPath, CopiesAreNodes) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index h2d = b.copy("MEMORY_COPY_HOST_TO_DEVICE", s0, 0, 40);
  Index k = b.kernel("K", s0, 50, 100);
  Index d2h = b.copy("MEMORY_COPY_DEVICE_TO_HOST", s0, 110, 130);
  b.kernel("other", s1, 0, 20);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.node_count, 4u);
  EXPECT_EQ(r.nodes[2], C(h2d));  // dispatches first, then copies
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{C(h2d), D(k), C(d2h)}));
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 130);
  EXPECT_DOUBLE_EQ(r.critical_path_busy_ns, 110);
  ASSERT_EQ(r.contributions.size(), 3u);
  EXPECT_EQ(r.contributions[0].name, "K");
  EXPECT_EQ(r.contributions[1].name, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(r.contributions[2].name, "MEMORY_COPY_DEVICE_TO_HOST");
  EXPECT_DOUBLE_EQ(r.contributions[1].time_on_path_ns, 40);
  EXPECT_DOUBLE_EQ(r.contributions[1].fraction_of_path, 40.0 / 130.0);
}

// One stream whose copies have no queue (as rocprofv3 and the CUDA collector write them): queue order would
// split it into a kernel chain and a copy chain with no order between them, and the critical path of a
// single-stream PyTorch step then ran through the copies alone (issue 13). Such a process orders by stream.
//   s0/q0: K1[0,10) . K2[30,40)     s0/(no queue): H2D[10,20) . D2H[40,50)
// One lane K1 -> H2D -> K2 -> D2H: 3 stream-order edges.
TEST(CriticalPath, QueuelessCopiesKeepTheirStreamInOneLane) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p);
  b.kernel("K1", s0, 0, 10);
  b.kernel("K2", s0, 30, 40);
  b.copy("MEMORY_COPY_HOST_TO_DEVICE", s0, 10, 20);
  b.copy("MEMORY_COPY_DEVICE_TO_HOST", s0, 40, 50);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.ordering, "stream");
  EXPECT_EQ(r.edges.stream_order, 3u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(0), C(0), D(1), C(1)}));
}

// Processes are separate: correlation ids repeat across them and a device sync in one process orders
// nothing in the other.
//   p0: s0: A[0,100) c1                       s1: D[120,130) c4
//   p1: s2: B[10,50) c1    s3: C[60,80) c3    host (p1): deviceSync c2
// Only B -> join -> C (host sync). With p0 mixed in, A -> D would appear if processes were not separated.
TEST(CriticalPath, MultiProcessTracesStaySeparate) {
  TraceBuilder b;
  Index p0 = b.process(), p1 = b.process();
  Index s0 = b.stream(p0), s1 = b.stream(p0), s2 = b.stream(p1), s3 = b.stream(p1);
  b.kernel("A", s0, 0, 100, 1);
  Index d = b.kernel("D", s1, 120, 130, 4);
  Index bb = b.kernel("B", s2, 10, 50, 1);
  Index c = b.kernel("C", s3, 60, 80, 3);
  b.host_sync(SyncKind::DeviceSynchronize, p1, kNoIndex, 0, 2);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.ordering, "stream");
  EXPECT_EQ(r.edges.host_sync, 2u);  // B -> join -> C
  EXPECT_EQ(r.edges.total(), 2u);
  // D is a source: EF 130, path [D], cp 10. C: EF 50 + 10 + 20 = 80.
  EXPECT_EQ(path_of(r), std::vector<NodeRef>{D(d)});
  EXPECT_EQ(r.earliest_start[pos(b.trace, D(c))], 60);
  EXPECT_EQ(r.slack[pos(b.trace, D(bb))], 50);  // LF(B) = LS(C) - g(C) = 110 - 10 = 100; EF 50

  // A third process with a single stream orders by queue: "mixed".
  Index p2 = b.process();
  b.kernel("E", b.stream(p2), 0, 10);
  EXPECT_EQ(analyze_critical_path(b.trace).ordering, "mixed");
}

// Per-symbol contributions, by display name: two symbols with the same name (the second gemm comes from
// another code object) are one entry.
//   p0 s0: gemm[0,40) . relu[40,50) . gemm'[50,90)
//   p1 s1: gemm[0,5)
// Path [gemm, relu, gemm'] (p0): cp 90; gemm 2 dispatches, 80 ns, 80/90; relu 1, 10, 10/90.
TEST(CriticalPath, PerSymbolContributions) {
  TraceBuilder b;
  Index p0 = b.process(), p1 = b.process();
  Index s0 = b.stream(p0), s1 = b.stream(p1);
  b.kernel("gemm", s0, 0, 40);
  b.kernel("relu", s0, 40, 50);
  b.kernel("gemm", s0, 50, 90);
  b.kernel("gemm", s1, 0, 5);
  ASSERT_EQ(b.trace.symbols.size(), 3u);  // gemm@p0, relu@p0, gemm@p1
  b.trace.symbols.push_back(b.trace.symbols[0]);
  b.trace.dispatches.edit(2)->symbol = 3;
  CriticalPathResult r = analyze_critical_path(b.trace);
  ASSERT_EQ(r.contributions.size(), 2u);
  EXPECT_EQ(r.contributions[0].name, "gemm");
  EXPECT_EQ(r.contributions[0].dispatches_on_path, 2u);
  EXPECT_DOUBLE_EQ(r.contributions[0].time_on_path_ns, 80);
  EXPECT_DOUBLE_EQ(r.contributions[0].fraction_of_path, 80.0 / 90.0);
  EXPECT_EQ(r.contributions[1].name, "relu");
  EXPECT_DOUBLE_EQ(r.contributions[1].fraction_of_path, 10.0 / 90.0);
  // The p1 gemm is off the path: slack = 90 - 5 = 85.
  EXPECT_EQ(r.slack[3], 85);
}

// Slack through a diamond of event edges:
//   s0: A[0,10) c1   B[10,50) c3                     E[60,70) c9
//   s1:        C[15,25) c5 . D[25,35) c6
//   host: record(e1,s0) c2; wait(s1,e1) c4; record(e2,s1) c7; wait(s0,e2) c8
// Edges: stream A->B, B->E, C->D; event A->C (e1 captured A), D->E (e2 captured D).
// Gaps: A 0, B 0, C 15-10 = 5, D 0, E 60 - max(50,35) = 10.
// EF: A 10, B 50, C 25, D 35, E 70. LF: E 70; B = D = LS(E)-g(E) = 60-10 = 50;
// C = LS(D) - g(D) = 40; A = min(LS(B)-0, LS(C)-5) = min(10, 25) = 10.
// Slack = LF - EF: A 0, B 0, C 15, D 15, E 0. Path [A, B, E].
TEST(CriticalPath, SlackValuesThroughDiamond) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 10, 1);
  Index bb = b.kernel("B", s0, 10, 50, 3);
  b.kernel("C", s1, 15, 25, 5);
  b.kernel("D", s1, 25, 35, 6);
  Index e = b.kernel("E", s0, 60, 70, 9);
  b.host_sync(SyncKind::EventRecord, p, s0, 1, 2);
  b.host_sync(SyncKind::StreamWaitEvent, p, s1, 1, 4);
  b.host_sync(SyncKind::EventRecord, p, s1, 2, 7);
  b.host_sync(SyncKind::StreamWaitEvent, p, s0, 2, 8);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.event_wait, 2u);
  EXPECT_EQ(r.edges.stream_order, 3u);
  EXPECT_EQ(r.slack, (std::vector<TimeNs>{0, 0, 15, 15, 0}));
  EXPECT_EQ(r.earliest_start, (std::vector<TimeNs>{0, 10, 15, 25, 60}));
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb), D(e)}));
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 70);
  EXPECT_DOUBLE_EQ(r.critical_path_idle_ns, 10);
}

// Binding-predecessor ties prefer the same stream, then the lower id.
//   s1: Y[0,10) c1 (dispatch 0)
//   s0: X[0,10) c2 (dispatch 1)      Z[20,30) c4 (dispatch 2)
//   host: streamSync(s1) c3 -> edge Y -> Z; Z's preds X and Y both finish at 10.
// Same stream wins over the lower id: path [X, Z]. Without X's stream order (X on a third stream, also
// finishing at 10 but with no edge to Z), Y is the only pred: path [Y, Z].
TEST(CriticalPath, BindingPredecessorTiePrefersSameStream) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index y = b.kernel("Y", s1, 0, 10, 1);
  Index x = b.kernel("X", s0, 0, 10, 2);
  Index z = b.kernel("Z", s0, 20, 30, 4);
  b.host_sync(SyncKind::StreamSynchronize, p, s1, 0, 3);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.edges.host_sync, 2u);  // Y -> join -> Z
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(x), D(z)}));
  EXPECT_EQ(r.path_links, std::vector<EdgeKind>{EdgeKind::StreamOrder});
  EXPECT_EQ(r.slack, (std::vector<TimeNs>{0, 0, 0}));  // both tied preds are critical
  EXPECT_EQ(r.on_path[pos(b.trace, D(y))], 0);  // ... but only one is on the path

  // Two tied cross-stream preds (device sync from s1 and s2 into s0's Z): the lower id wins.
  TraceBuilder b2;
  p = b2.process();
  s0 = b2.stream(p), s1 = b2.stream(p);
  Index s2 = b2.stream(p);
  Index w = b2.kernel("W", s2, 0, 10, 1);
  b2.kernel("V", s1, 0, 10, 2);
  z = b2.kernel("Z", s0, 20, 30, 4);
  b2.host_sync(SyncKind::DeviceSynchronize, p, kNoIndex, 0, 3);
  r = analyze_critical_path(b2.trace);
  EXPECT_EQ(r.edges.host_sync, 3u);  // W, V -> join -> Z; the join stands for W (tied, lower id)
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(w), D(z)}));
}

// Zero-duration nodes sit in the chain by (start, end, id):
//   s0: A[0,10) Z[10,10) B[10,20)  -> A -> Z -> B; all on the path with slack 0, cp 20, busy 20.
TEST(CriticalPath, ZeroDurationNodes) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p);
  Index bb = b.kernel("B", s0, 10, 20);
  Index a = b.kernel("A", s0, 0, 10);
  Index z = b.kernel("Z", s0, 10, 10);
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(z), D(bb)}));
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 20);
  EXPECT_DOUBLE_EQ(r.critical_path_busy_ns, 20);
  EXPECT_EQ(r.slack, (std::vector<TimeNs>{0, 0, 0}));

  // A trace of one zero-length op: everything is 0 and nothing divides by zero.
  TraceBuilder one;
  one.kernel("Z", one.stream(one.process()), 5, 5);
  r = analyze_critical_path(one.trace);
  EXPECT_EQ(r.path.size(), 1u);
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 0);
  EXPECT_DOUBLE_EQ(r.parallelism, 0);
}

// Overlapping timestamps on one stream (clock skew): B starts before A ends.
//   s0: A[0,100)
//          B[50,120)
// Edge A -> B; gap(B) = max(0, 50 - 100) = 0; EF(B) = 100 + 70 = 170 > wall span 120.
// Then broken[200,150): end < start counts as 0 long, at 200.
// Overlap potential is wall span - path busy, floored at 0.
TEST(CriticalPath, OverlappingTimestampsOnOneStream) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p);
  b.kernel("A", s0, 0, 100);
  b.kernel("B", s0, 50, 120);
  b.kernel("broken", s0, 200, 150);  // end < start: duration 0, at 200
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_DOUBLE_EQ(r.wall_span_ns, 200);
  // broken: gap 200 - 120 = 80 after B, EF 170 + 80 + 0 = 250.
  EXPECT_DOUBLE_EQ(r.modeled_span_ns, 250);
  EXPECT_DOUBLE_EQ(r.critical_path_busy_ns, 170);
  EXPECT_DOUBLE_EQ(r.critical_path_ns, 250);
  EXPECT_EQ(r.path.size(), 3u);

  b.trace.dispatches.resize(b.trace.dispatches.size() - 1);
  r = analyze_critical_path(b.trace);
  EXPECT_DOUBLE_EQ(r.modeled_span_ns, 170);
}

// Contradictory records close a cycle:
//   s0: A[0,10) c5           B[100,110) c6
//   s1:   D[20,30) c9   C[50,60) c1
//   host: record(e2, s1) c2 (captures C); wait(s0, e2) c3 (-> A: first on s0 with corr > 3)
//         record(e1, s0) c7 (captures B); wait(s1, e1) c8 (-> D: first on s1 with corr > 8)
// Cycle A -> B -> D -> C -> A. Backward in time: B(100) -> D(20) and C(50) -> A(0): both dropped.
TEST(CriticalPath, CycleFromContradictoryRecordsIsBroken) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  b.kernel("A", s0, 0, 10, 5);
  b.kernel("B", s0, 100, 110, 6);
  b.kernel("C", s1, 50, 60, 1);
  b.kernel("D", s1, 20, 30, 9);
  b.host_sync(SyncKind::EventRecord, p, s1, 2, 2);
  b.host_sync(SyncKind::StreamWaitEvent, p, s0, 2, 3);
  b.host_sync(SyncKind::EventRecord, p, s0, 1, 7);
  b.host_sync(SyncKind::StreamWaitEvent, p, s1, 1, 8);
  const log::Level before = log::level();
  log::set_level(log::Level::Quiet);
  CriticalPathResult r = analyze_critical_path(b.trace);
  log::set_level(before);
  EXPECT_EQ(r.edges.cycle_dropped, 2u);
  EXPECT_EQ(r.edges.event_wait, 0u);
  EXPECT_EQ(r.edges.stream_order, 2u);
  // What is left is the measured timeline: makespan 110 = wall span; path [A, B].
  EXPECT_DOUBLE_EQ(r.modeled_span_ns, 110);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(0), D(1)}));
}

// Opt-in inference: B starts 2 us after A ends on another stream, with nothing recorded.
//   s0: A[0,100000)
//   s1:               B[102000,150000) . C[200000,210000)
// Default: no edge between streams. With infer_cross_stream: A -> B (inferred, 2 us <= 5 us window);
// C has no op of another stream ending in [195000, 200000]: nothing more.
// Path [A, B, C], links [inferred, stream order].
TEST(CriticalPath, InferenceIsOptInAndLabelled) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  Index a = b.kernel("A", s0, 0, 100000);
  Index bb = b.kernel("B", s1, 102000, 150000);
  Index c = b.kernel("C", s1, 200000, 210000);
  CriticalPathResult plain = analyze_critical_path(b.trace);
  EXPECT_FALSE(plain.inferred_edges_enabled);
  EXPECT_EQ(plain.edges.inferred, 0u);
  EXPECT_EQ(plain.path.front(), D(bb));

  DagOptions infer;
  infer.infer_cross_stream = true;
  CriticalPathResult r = analyze_critical_path(b.trace, infer);
  EXPECT_TRUE(r.inferred_edges_enabled);
  EXPECT_EQ(r.edges.inferred, 1u);
  EXPECT_EQ(path_of(r), (std::vector<NodeRef>{D(a), D(bb), D(c)}));
  EXPECT_EQ(r.path_links, (std::vector<EdgeKind>{EdgeKind::Inferred, EdgeKind::StreamOrder}));
  EXPECT_EQ(r.inferred_links_on_path, 1u);
  EXPECT_STREQ(to_string(EdgeKind::Inferred), "inferred");

  // 6 us apart: outside the window, nothing inferred.
  b.trace.dispatches.edit(bb)->start = 106000;
  EXPECT_EQ(analyze_critical_path(b.trace, infer).edges.inferred, 0u);
}

// A node that already has a recorded cross-stream predecessor gets no inferred edge.
TEST(CriticalPath, InferenceSkipsNodesWithRecordedCrossStreamEdge) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p), s2 = b.stream(p);
  b.kernel("A", s0, 0, 1000, 1);
  b.kernel("X", s2, 0, 1500, 2);
  b.kernel("B", s1, 2000, 3000, 5);
  b.host_sync(SyncKind::EventRecord, p, s0, 1, 3);
  b.host_sync(SyncKind::StreamWaitEvent, p, s1, 1, 4);
  DagOptions infer;
  infer.infer_cross_stream = true;
  CriticalPathResult r = analyze_critical_path(b.trace, infer);
  EXPECT_EQ(r.edges.event_wait, 1u);
  EXPECT_EQ(r.edges.inferred, 0u);  // X ended closer to B, but B already waits on A
}

// ---- what-if ----

// One stream: gemm[0,100) . relu[110,130) . gemm[140,240); gaps 10 and 10 stay.
// gemm=0.5: 50 + 10 + 20 + 10 + 50 = 140 -> delta -100 (= the naive sum, all on the path).
TEST(WhatIf, SpeedingUpCriticalKernelShortensMakespanExactly) {
  TraceBuilder b;
  Index s0 = b.stream(b.process());
  b.kernel("gemm_f32", s0, 0, 100);
  b.kernel("relu", s0, 110, 130);
  b.kernel("gemm_f32", s0, 140, 240);
  auto r = run_what_if(b.trace, {parse_what_if("gemm=0.5")});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].combined);
  EXPECT_EQ(r[0].matched_dispatches, 2u);
  EXPECT_EQ(r[0].matched_kernels, std::vector<std::string>{"gemm_f32"});
  EXPECT_DOUBLE_EQ(r[0].baseline_ns, 240);
  EXPECT_DOUBLE_EQ(r[0].predicted_ns, 140);
  EXPECT_DOUBLE_EQ(r[0].delta_ns, -100);
  EXPECT_DOUBLE_EQ(r[0].naive_delta_ns, -100);
  EXPECT_DOUBLE_EQ(r[0].speedup, 240.0 / 140.0);
}

// Two streams: s0: gemm[0,100)   s1: relu[0,30) . relu[40,60)   (relu has 40 slack)
//  relu=0.5: relu 15 and 10 -> s1 ends at 15+10+10 = 35 < 100: makespan stays 100, delta 0, while the
//            naive sum claims -(15 + 10) = -25.
//  gemm=0.5: s0 ends at 50, s1 at 60: makespan 60, delta -40 (naive -50: slack caps the gain).
//  combined (both): max(50, 35) = 50, delta -50, naive -75.
TEST(WhatIf, OffPathKernelWithSlackChangesNothing) {
  TraceBuilder b;
  Index p = b.process();
  Index s0 = b.stream(p), s1 = b.stream(p);
  b.kernel("gemm", s0, 0, 100);
  b.kernel("relu", s1, 0, 30);
  b.kernel("relu", s1, 40, 60);
  auto r = run_what_if(b.trace, {parse_what_if("relu=0.5"), parse_what_if("gemm=0.5"), parse_what_if("nomatch=0.1")});
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].matched_dispatches, 2u);
  EXPECT_DOUBLE_EQ(r[0].predicted_ns, 100);
  EXPECT_DOUBLE_EQ(r[0].delta_ns, 0);
  EXPECT_DOUBLE_EQ(r[0].naive_delta_ns, -25);
  EXPECT_DOUBLE_EQ(r[0].speedup, 1);

  EXPECT_DOUBLE_EQ(r[1].predicted_ns, 60);
  EXPECT_DOUBLE_EQ(r[1].delta_ns, -40);
  EXPECT_DOUBLE_EQ(r[1].naive_delta_ns, -50);

  EXPECT_EQ(r[2].matched_dispatches, 0u);  // a pattern matching nothing is reported, not an error
  EXPECT_TRUE(r[2].matched_kernels.empty());
  EXPECT_DOUBLE_EQ(r[2].delta_ns, 0);
  EXPECT_DOUBLE_EQ(r[2].naive_delta_ns, 0);

  EXPECT_TRUE(r[3].combined);
  EXPECT_EQ(r[3].spec.pattern, "relu=0.5; gemm=0.5; nomatch=0.1");
  EXPECT_EQ(r[3].matched_dispatches, 3u);
  EXPECT_EQ(r[3].matched_kernels, (std::vector<std::string>{"gemm", "relu"}));
  EXPECT_DOUBLE_EQ(r[3].predicted_ns, 50);
  EXPECT_DOUBLE_EQ(r[3].delta_ns, -50);
  EXPECT_DOUBLE_EQ(r[3].naive_delta_ns, -75);
}

// Slowing a kernel down (factor > 1) works the same way: gemm=2 on the chain above: 200+10+20+10+200.
TEST(WhatIf, SlowdownFactor) {
  TraceBuilder b;
  Index s0 = b.stream(b.process());
  b.kernel("gemm", s0, 0, 100);
  b.kernel("relu", s0, 110, 130);
  b.kernel("gemm", s0, 140, 240);
  auto r = run_what_if(b.trace, {parse_what_if("^gemm$=2")});
  EXPECT_DOUBLE_EQ(r[0].predicted_ns, 440);
  EXPECT_DOUBLE_EQ(r[0].naive_delta_ns, 200);
}

TEST(WhatIf, ParsesSpecAtLastEquals) {
  WhatIf w = parse_what_if("gemm=0.25");
  EXPECT_EQ(w.pattern, "gemm");
  EXPECT_DOUBLE_EQ(w.factor, 0.25);
  w = parse_what_if("a=b=1.5");
  EXPECT_EQ(w.pattern, "a=b");
  EXPECT_DOUBLE_EQ(w.factor, 1.5);
  w = parse_what_if("k.*<float>=1e-1");
  EXPECT_EQ(w.pattern, "k.*<float>");
  EXPECT_DOUBLE_EQ(w.factor, 0.1);
}

TEST(WhatIf, RejectsMalformedSpecs) {
  for (const std::string spec : {"abc", "gemm=0", "gemm=-1", "gemm=inf", "gemm=nan", "=0.5", "gemm=",
                                 "gemm=abc", "gemm=0.5x", "gemm= 0.5", "([=0.5"}) {
    try {
      parse_what_if(spec);
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::Usage) << spec;
      EXPECT_NE(std::string(e.what()).find("'" + spec + "'"), std::string::npos) << e.what();
    }
  }
  // run_what_if validates scenarios built by hand, too.
  Trace t;
  EXPECT_THROW(run_what_if(t, {{"(", 0.5}}), Error);
  EXPECT_THROW(run_what_if(t, {{"k", 0}}), Error);
}

// Not timed: a large trace completes and the model reproduces it. 4 streams x 50,000 back-to-back
// kernels of 10 ns (kernel i of stream s at (s + i) * 10), an event record/wait pair every 1,000 kernels
// from kernel i of stream s to kernel i of stream s+1, which starts as the other ends. Nothing overlaps,
// so the modeled span equals the wall span.
TEST(CriticalPath, LargeTraceCompletes) {
  TraceBuilder b;
  Index p = b.process();
  constexpr int kStreams = 4, kPerStream = 50000;
  Index streams[kStreams];
  for (Index& s : streams) s = b.stream(p);
  b.trace.dispatches.reserve(kStreams * kPerStream);
  int64_t corr = 1;
  for (int i = 0; i < kPerStream; ++i) {
    for (int s = 0; s < kStreams; ++s) {
      b.kernel(i % 2 ? "odd" : "even", streams[s], (s + i) * 10, (s + i) * 10 + 10, corr++);
      if (i % 1000 == 999 && s + 1 < kStreams) {
        b.host_sync(SyncKind::EventRecord, p, streams[s], 100 + s, corr++);
        b.host_sync(SyncKind::StreamWaitEvent, p, streams[s + 1], 100 + s, corr++);
      }
    }
  }
  CriticalPathResult r = analyze_critical_path(b.trace);
  EXPECT_EQ(r.node_count, std::size_t{kStreams * kPerStream});
  EXPECT_EQ(r.edges.stream_order, std::size_t{kStreams * (kPerStream - 1)});
  EXPECT_EQ(r.edges.event_wait, std::size_t{(kStreams - 1) * (kPerStream / 1000)});
  EXPECT_DOUBLE_EQ(r.wall_span_ns, (kStreams - 1 + kPerStream) * 10.0);
  EXPECT_DOUBLE_EQ(r.modeled_span_ns, r.wall_span_ns);
  EXPECT_FALSE(r.path.empty());
  EXPECT_TRUE(std::all_of(r.slack.begin(), r.slack.end(), [](TimeNs s) { return s >= 0; }));
  auto w = run_what_if(b.trace, {parse_what_if("even=0.5")});
  EXPECT_EQ(w[0].matched_dispatches, std::size_t{kStreams * kPerStream / 2});
  EXPECT_LT(w[0].predicted_ns, w[0].baseline_ns);
}

}  // namespace
}  // namespace rpl::analysis
