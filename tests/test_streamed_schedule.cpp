// The streamed schedule (issue 32: the critical path in submission order with state per lane, edge and join, no
// per-node arrays) gives every result of the per-node arrays, and is not taken when submission order is not a
// topological order of the DAG (lanes out of order, edges or joins pointing backward, cycles).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/critical_path.hpp"
#include "support/log.hpp"
#include "testing/in_memory_trace.hpp"

namespace rpl::analysis {
namespace {

// Every field of two results, the per-node rows included.
void expect_same(const CriticalPathResult& a, const CriticalPathResult& b) {
  EXPECT_EQ(a.node_count, b.node_count);
  EXPECT_EQ(a.edges.stream_order, b.edges.stream_order);
  EXPECT_EQ(a.edges.event_wait, b.edges.event_wait);
  EXPECT_EQ(a.edges.host_sync, b.edges.host_sync);
  EXPECT_EQ(a.edges.barrier, b.edges.barrier);
  EXPECT_EQ(a.edges.inferred, b.edges.inferred);
  EXPECT_EQ(a.edges.cycle_dropped, b.edges.cycle_dropped);
  EXPECT_EQ(a.joins.total(), b.joins.total());
  EXPECT_EQ(a.ordering, b.ordering);
  EXPECT_EQ(a.trace_start_ns, b.trace_start_ns);
  EXPECT_EQ(a.wall_span_ns, b.wall_span_ns);
  EXPECT_EQ(a.modeled_span_ns, b.modeled_span_ns);
  EXPECT_EQ(a.critical_path_ns, b.critical_path_ns);
  EXPECT_EQ(a.critical_path_busy_ns, b.critical_path_busy_ns);
  EXPECT_EQ(a.critical_path_idle_ns, b.critical_path_idle_ns);
  EXPECT_EQ(a.serial_ns, b.serial_ns);
  EXPECT_EQ(a.parallelism, b.parallelism);
  EXPECT_TRUE(a.path == b.path);
  EXPECT_TRUE(a.path_links == b.path_links);
  EXPECT_EQ(a.inferred_links_on_path, b.inferred_links_on_path);
  ASSERT_EQ(a.contributions.size(), b.contributions.size());
  for (std::size_t i = 0; i < a.contributions.size(); ++i) {
    EXPECT_EQ(a.contributions[i].name, b.contributions[i].name);
    EXPECT_EQ(a.contributions[i].dispatches_on_path, b.contributions[i].dispatches_on_path);
    EXPECT_EQ(a.contributions[i].time_on_path_ns, b.contributions[i].time_on_path_ns);
  }
  ASSERT_EQ(a.kernel_slack.size(), b.kernel_slack.size());
  for (std::size_t i = 0; i < a.kernel_slack.size(); ++i) {
    EXPECT_EQ(a.kernel_slack[i].name, b.kernel_slack[i].name);
    EXPECT_EQ(a.kernel_slack[i].dispatches, b.kernel_slack[i].dispatches);
    EXPECT_EQ(a.kernel_slack[i].on_critical_path, b.kernel_slack[i].on_critical_path);
    EXPECT_EQ(a.kernel_slack[i].min_slack_ns, b.kernel_slack[i].min_slack_ns);
    EXPECT_EQ(a.kernel_slack[i].median_slack_ns, b.kernel_slack[i].median_slack_ns);
  }
  EXPECT_TRUE(a.nodes == b.nodes);
  EXPECT_TRUE(a.earliest_start == b.earliest_start);
  EXPECT_TRUE(a.slack == b.slack);
  EXPECT_TRUE(a.on_path == b.on_path);
}

// The streamed schedule's result and the per-node arrays' (forced), compared; returns the former.
CriticalPathResult both_ways(const Trace& trace, DagOptions options = {}) {
  const log::Level before = log::level();
  log::set_level(log::Level::Quiet);  // cycles warn
  options.streamed = true;
  CriticalPathResult streamed = analyze_critical_path(trace, options);
  options.streamed = false;
  const CriticalPathResult arrays = analyze_critical_path(trace, options);
  log::set_level(before);
  EXPECT_FALSE(arrays.streamed);
  expect_same(streamed, arrays);
  options.node_rows = false;  // the same figures without the rows
  options.streamed = true;
  const CriticalPathResult lean = analyze_critical_path(trace, options);
  EXPECT_EQ(lean.streamed, streamed.streamed);
  EXPECT_EQ(lean.critical_path_ns, streamed.critical_path_ns);
  EXPECT_TRUE(lean.path == streamed.path);
  EXPECT_TRUE(lean.nodes.empty());
  EXPECT_EQ(lean.kernel_slack.size(), streamed.kernel_slack.size());
  for (std::size_t i = 0; i < lean.kernel_slack.size() && i < streamed.kernel_slack.size(); ++i)
    EXPECT_EQ(lean.kernel_slack[i].median_slack_ns, streamed.kernel_slack[i].median_slack_ns);
  return streamed;
}

// A random timeline the way a host submits it: processes with a few streams and host threads launch kernels and
// copies, record and wait for events, synchronise streams, events and the device, and the GPU honours every
// recorded dependency (a stream starts its next work after its last; a waiting stream after the recorded work;
// work submitted after a host synchronisation after what it waited for). Correlation ids follow submission order
// per process; the records are appended in submission order, the processes interleaved.
class Timeline {
 public:
  Timeline(unsigned seed, unsigned processes, unsigned streams, unsigned steps) : rng_(seed) {
    for (const char* name : {"gemm", "softmax", "copy_kernel", "reduce"}) names_.push_back(trace.strings.intern(name));
    for (unsigned p = 0; p < processes; ++p) {
      trace.processes.push_back(Process{});
      trace.processes.back().pid = static_cast<int64_t>(p + 1);
      Agent gpu;
      gpu.process = p;
      gpu.is_gpu = true;
      trace.agents.push_back(gpu);
      for (Index name : names_) {
        KernelSymbol k;
        k.process = p;
        k.display_name = k.mangled_name = name;
        trace.symbols.push_back(k);
      }
      Host h;
      for (unsigned s = 0; s < streams; ++s) {
        trace.streams.push_back(Stream{p, static_cast<int64_t>(s), ""});
        h.streams.push_back(static_cast<Index>(trace.streams.size() - 1));
      }
      h.end.assign(streams, 0);
      h.wait.assign(streams, 0);
      hosts_.push_back(h);
    }
    for (unsigned i = 0; i < steps; ++i) step(hosts_[pick(processes)]);
  }

  Trace trace;

 private:
  struct Host {
    std::vector<Index> streams;
    std::vector<TimeNs> end, wait;  // per stream: its last work's end; the time a recorded event makes it wait for
    TimeNs now = 1000;
    int64_t corr = 1;
    std::vector<std::pair<uint64_t, TimeNs>> events;  // recorded: handle, the end of the work it captured
  };

  unsigned pick(unsigned n) { return std::uniform_int_distribution<unsigned>(0, n - 1)(rng_); }
  TimeNs later(unsigned most) { return static_cast<TimeNs>(pick(most)); }
  Index process_of(const Host& h) const { return static_cast<Index>(&h - hosts_.data()); }

  void sync(Host& h, SyncKind kind, Index stream, uint64_t event, uint32_t thread) {
    SyncOp op;
    op.kind = kind;
    op.process = process_of(h);
    op.stream = stream;
    op.event = event;
    op.thread = thread;
    op.correlation_id = h.corr++;
    op.start = h.now;
    op.end = h.now + 1;
    h.now += 2;
    trace.sync_ops.push_back(op);
  }

  void step(Host& h) {
    const unsigned s = pick(static_cast<unsigned>(h.streams.size()));
    const uint32_t thread = 1 + pick(2);
    const unsigned action = pick(20);
    if (action < 12) {  // a kernel
      Dispatch d;
      d.process = process_of(h);
      d.stream = d.queue = h.streams[s];
      d.agent = d.process;
      d.thread = thread;
      d.symbol = static_cast<Index>(d.process * names_.size() + pick(static_cast<unsigned>(names_.size())));
      d.start = std::max({h.end[s], h.wait[s], h.now + 5}) + later(30);
      d.end = d.start + (pick(8) == 0 ? 0 : 1 + later(200));
      d.correlation_id = h.corr++;
      d.dispatch_id = static_cast<int64_t>(trace.dispatches.size() + 1);
      h.end[s] = d.end;
      h.now += 3;
      trace.dispatches.push_back(d);
    } else if (action < 14) {  // a copy on the stream (some without a queue)
      MemoryCopy c;
      c.process = process_of(h);
      c.stream = h.streams[s];
      c.queue = pick(2) ? kNoIndex : h.streams[s];
      c.thread = thread;
      c.kind = trace.strings.intern(pick(2) ? "MEMORY_COPY_HOST_TO_DEVICE" : "MEMORY_COPY_DEVICE_TO_HOST");
      c.dst_agent = c.process;
      c.start = std::max({h.end[s], h.wait[s], h.now + 5}) + later(30);
      c.end = c.start + 1 + later(100);
      c.correlation_id = h.corr++;
      c.copy_id = static_cast<int64_t>(trace.copies.size() + 1);
      h.end[s] = c.end;
      h.now += 3;
      trace.copies.push_back(c);
    } else if (action < 17) {  // record an event on s, another stream waits for it
      const uint64_t event = 100 + trace.sync_ops.size();
      sync(h, SyncKind::EventRecord, h.streams[s], event, thread);
      h.events.push_back({event, h.end[s]});
      const unsigned w = pick(static_cast<unsigned>(h.streams.size()));
      sync(h, SyncKind::StreamWaitEvent, h.streams[w], event, thread);
      h.wait[w] = std::max(h.wait[w], h.end[s]);
    } else if (action == 17) {  // the host waits for one stream
      sync(h, SyncKind::StreamSynchronize, h.streams[s], 0, thread);
      h.now = std::max(h.now, h.end[s] + 1);
    } else if (action == 18 && !h.events.empty()) {  // the host waits for an event
      const auto& [event, end] = h.events[pick(static_cast<unsigned>(h.events.size()))];
      sync(h, SyncKind::EventSynchronize, kNoIndex, event, thread);
      h.now = std::max(h.now, end + 1);
    } else {  // the host waits for the device
      sync(h, SyncKind::DeviceSynchronize, kNoIndex, 0, thread);
      for (TimeNs e : h.end) h.now = std::max(h.now, e + 1);
    }
  }

  std::mt19937 rng_;
  std::vector<Index> names_;
  std::vector<Host> hosts_;
};

TEST(StreamedSchedule, SameResultsAsPerNodeArraysOnRandomTimelines) {
  for (unsigned seed = 0; seed < 120; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Timeline t(seed, 1 + seed % 3, 1 + seed % 5, 50 + 7 * seed);
    DagOptions options;
    options.infer_cross_stream = seed % 4 == 3;
    const CriticalPathResult r = both_ways(t.trace, options);
    // Submission order is a topological order of these timelines: the streamed schedule is taken (inferred
    // edges come from timing and may point backward in it).
    if (!options.infer_cross_stream) EXPECT_TRUE(r.streamed);
  }
}

// What-if's forward pass, streamed and with the arrays: the same predictions, bit for bit.
TEST(StreamedSchedule, WhatIfSameBothWays) {
  for (unsigned seed = 200; seed < 240; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Timeline t(seed, 1 + seed % 3, 1 + seed % 4, 80 + 5 * seed % 300);
    const std::vector<WhatIf> scenarios = {parse_what_if("gemm=0.5"), parse_what_if("soft.*=1.7"), parse_what_if(".*=0.9")};
    DagOptions options;
    options.infer_cross_stream = seed % 5 == 4;
    const std::vector<WhatIfResult> streamed = run_what_if(t.trace, scenarios, options);
    options.streamed = false;
    const std::vector<WhatIfResult> arrays = run_what_if(t.trace, scenarios, options);
    ASSERT_EQ(streamed.size(), arrays.size());
    for (std::size_t i = 0; i < streamed.size(); ++i) {
      EXPECT_EQ(streamed[i].baseline_ns, arrays[i].baseline_ns);
      EXPECT_EQ(streamed[i].predicted_ns, arrays[i].predicted_ns);
      EXPECT_EQ(streamed[i].naive_delta_ns, arrays[i].naive_delta_ns);
      EXPECT_EQ(streamed[i].matched_dispatches, arrays[i].matched_dispatches);
      EXPECT_TRUE(streamed[i].matched_kernels == arrays[i].matched_kernels);
    }
    // The baseline is the schedule's makespan.
    if (!streamed.empty()) EXPECT_EQ(streamed[0].baseline_ns, analyze_critical_path(t.trace, options).modeled_span_ns);
  }
}

// Several thousand nodes: the earliest finishes and the slacks go through temporary files.
TEST(StreamedSchedule, LargeTimelineThroughTemporaryFiles) {
  const Timeline t(7, 2, 6, 300000);
  ASSERT_GT(t.trace.dispatches.size(), std::size_t{1} << 17);
  const CriticalPathResult r = both_ways(t.trace);
  EXPECT_TRUE(r.streamed);
  EXPECT_GT(r.joins.total(), 0u);
}

// A small builder for the cases the streamed schedule must leave to the arrays.
struct Builder : test::InMemoryTrace {
  Builder() {
    trace.processes.push_back(Process{});
    Agent gpu;
    gpu.is_gpu = true;
    trace.agents.push_back(gpu);
    KernelSymbol k;
    k.display_name = k.mangled_name = trace.strings.intern("k");
    trace.symbols.push_back(k);
    for (int s = 0; s < 2; ++s) trace.streams.push_back(Stream{0, s, ""});
  }
  void kernel(Index stream, TimeNs start, TimeNs end, int64_t corr) {
    Dispatch d;
    d.stream = d.queue = stream;
    d.start = start;
    d.end = end;
    d.correlation_id = corr;
    d.dispatch_id = static_cast<int64_t>(trace.dispatches.size() + 1);
    trace.dispatches.push_back(d);
  }
  void sync(SyncKind kind, Index stream, uint64_t event, int64_t corr) {
    SyncOp op;
    op.kind = kind;
    op.stream = stream;
    op.event = event;
    op.correlation_id = corr;
    trace.sync_ops.push_back(op);
  }
};

TEST(StreamedSchedule, TakenWhenCopiesAreRecordedOutOfSubmissionOrder) {
  // CUPTI records a copy when it ends: a PyTorch step's copy records (298 in a recorded H100 step, 81 of them)
  // come out of correlation order. s0: A[0,10) c1, copy X[12,20) c2, copy Y[30,35) c5 after the device sync c4
  // (released), B[40,50) c6; s1: copy Z[0,25) c3. The table lists Y, Z, X.
  Builder b;
  b.kernel(0, 0, 10, 1);
  b.kernel(0, 40, 50, 6);
  auto copy = [&](Index stream, TimeNs start, TimeNs end, int64_t corr) {
    MemoryCopy& c = b.add_copy(start, end);
    c.stream = c.queue = stream;
    c.correlation_id = corr;
  };
  copy(0, 30, 35, 5);
  copy(1, 0, 25, 3);
  copy(0, 12, 20, 2);
  b.sync(SyncKind::DeviceSynchronize, kNoIndex, 0, 4);
  const CriticalPathResult r = both_ways(b.trace);
  EXPECT_TRUE(r.streamed);  // fell back to the per-node arrays before the copies were put in submission order
  EXPECT_EQ(r.modeled_span_ns, 50);
  EXPECT_EQ(r.joins.total(), 1u);
}

TEST(StreamedSchedule, FallsBackWhenALaneIsOutOfOrder) {
  Builder b;
  b.kernel(0, 0, 10, 1);
  b.kernel(0, 50, 60, 3);
  b.kernel(0, 20, 30, 2);  // submitted last, runs second on its stream
  b.kernel(1, 5, 40, 4);
  const CriticalPathResult r = both_ways(b.trace);
  EXPECT_FALSE(r.streamed);
  EXPECT_EQ(r.modeled_span_ns, 60);
}

TEST(StreamedSchedule, FallsBackWhenAnEdgePointsBackward) {
  // The dispatch table is not in submission order: the waiting stream's kernel comes first.
  Builder b;
  b.kernel(1, 50, 60, 5);  // released by the wait
  b.kernel(0, 0, 40, 1);   // recorded
  b.sync(SyncKind::EventRecord, 0, 9, 2);
  b.sync(SyncKind::StreamWaitEvent, 1, 9, 3);
  const CriticalPathResult r = both_ways(b.trace);
  EXPECT_FALSE(r.streamed);
  EXPECT_EQ(r.edges.event_wait, 1u);
  EXPECT_EQ(r.path.size(), 2u);
}

TEST(StreamedSchedule, FallsBackWhenAJoinPrecedesItsWork) {
  Builder b;
  b.kernel(1, 50, 60, 5);  // released by the device synchronisation, listed first
  b.kernel(0, 0, 40, 1);   // waited for
  b.sync(SyncKind::DeviceSynchronize, kNoIndex, 0, 3);
  const CriticalPathResult r = both_ways(b.trace);
  EXPECT_FALSE(r.streamed);
  EXPECT_EQ(r.joins.total(), 1u);
  EXPECT_EQ(r.edges.host_sync, 2u);
}

TEST(StreamedSchedule, FallsBackOnACycle) {
  // Contradictory records: each stream waits for the other's later work.
  Builder b;
  b.kernel(0, 0, 10, 5);
  b.kernel(0, 100, 110, 6);
  b.kernel(1, 50, 60, 1);
  b.kernel(1, 20, 30, 9);
  b.sync(SyncKind::EventRecord, 1, 2, 2);
  b.sync(SyncKind::StreamWaitEvent, 0, 2, 3);
  b.sync(SyncKind::EventRecord, 0, 1, 7);
  b.sync(SyncKind::StreamWaitEvent, 1, 1, 8);
  const CriticalPathResult r = both_ways(b.trace);
  EXPECT_FALSE(r.streamed);
  EXPECT_EQ(r.edges.cycle_dropped, 2u);
}

TEST(StreamedSchedule, TakenThroughJoinsAndEvents) {
  // s0: A[0,40) c1 . C[100,120) c6;  s1: B[45,90) c4 (waits for A's event);  device sync c5 releases C.
  Builder b;
  b.kernel(0, 0, 40, 1);
  b.kernel(1, 45, 90, 4);
  b.kernel(0, 100, 120, 6);
  b.sync(SyncKind::EventRecord, 0, 3, 2);
  b.sync(SyncKind::StreamWaitEvent, 1, 3, 3);
  b.sync(SyncKind::DeviceSynchronize, kNoIndex, 0, 5);
  const CriticalPathResult r = both_ways(b.trace);
  EXPECT_TRUE(r.streamed);
  EXPECT_EQ(r.modeled_span_ns, 120);
  EXPECT_EQ(r.path.size(), 3u);  // A -> B -> (join) -> C
  ASSERT_EQ(r.path_links.size(), 2u);
  EXPECT_EQ(r.path_links[0], EdgeKind::EventWait);
  EXPECT_EQ(r.path_links[1], EdgeKind::HostSync);
}

}  // namespace
}  // namespace rpl::analysis
