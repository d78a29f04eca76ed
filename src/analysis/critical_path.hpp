#pragma once
// The critical-path DAG over a trace's GPU work.
//
// Nodes: every dispatch and memory copy. Edges: (1) the order of work within each stream (or, where a
// process uses fewer than two distinct streams, within each (agent, queue); queue-less copies then
// chain on their stream), and (2) cross-stream dependencies that the trace records: event record ->
// stream wait, GPU barrier packets, and host synchronisation calls (ordered against work by correlation
// id, i.e. submission order). No edge is inferred from timing unless DagOptions::infer_cross_stream asks,
// and such edges are counted and labelled as inferred. Contradictory records that close a cycle are
// broken by dropping the edges in the cycle that point backward in time (counted, with a warning).
//
// Model: each node v keeps its measured duration d(v) and the idle gap g(v) it showed after its last
// predecessor finished (launch latency, host delays): g(v) = max(0, start(v) - max end(pred)). A node
// without predecessors is released at its start relative to the trace start. Earliest start
// ES(v) = max over preds EF(u) + g(v), EF(v) = ES(v) + d(v). With measured durations the model
// reproduces the trace; re-timed durations (what-if) give the predicted end to end time.
//
// Cost: O((N + E) log N): a sort per stream, then linear passes in topological order.
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "model/trace.hpp"

namespace rpl::analysis {

enum class NodeKind : uint8_t { Dispatch, Copy };

struct NodeRef {
  NodeKind kind;
  Index index;  // into Trace::dispatches or Trace::copies
  bool operator==(const NodeRef&) const = default;
};

// Inferred edges exist only with DagOptions::infer_cross_stream; they come from timing, not the trace.
enum class EdgeKind : uint8_t { StreamOrder, EventWait, HostSync, Barrier, Inferred };
const char* to_string(EdgeKind k);

// Join nodes (see docs/critical-path.md): zero-duration DAG nodes where several chains of work meet. The
// reason says what joined them; other analyses may add reasons (e.g. a collective across ranks).
enum class JoinReason : uint8_t { HostSync, GpuBarrier };
inline constexpr std::size_t kJoinReasonCount = 2;
const char* to_string(JoinReason r);

struct DagOptions {
  // Nothing is inferred unless asked; inferred edges are labelled in the output.
  bool infer_cross_stream = false;
  // Tests only: a host synchronisation as an edge per (waited-for work, released work) pair, the form
  // before join nodes (quadratic in streams); the schedule is the same.
  bool pairwise_host_sync = false;
  // Keep the per-node arrays (CriticalPathResult::nodes, earliest_start, slack, on_path): 25 bytes per node
  // that only the per-node outputs (--slack-db, the Perfetto exports) read. The per-kernel slack summary is
  // computed either way.
  bool node_rows = true;
  // Tests only: false skips the streamed schedule (submission order, no per-node arrays; issue 32) and takes the
  // per-node arrays at once, to compare the two.
  bool streamed = true;
};

// Edges of the final DAG by kind (after removing self and duplicate edges), and the recorded edges that
// were dropped to break cycles (contradictory timestamps).
// Edges into and out of join nodes count under their kind (host_sync, barrier).
struct EdgeCounts {
  std::size_t stream_order = 0, event_wait = 0, host_sync = 0, barrier = 0, inferred = 0;
  std::size_t cycle_dropped = 0;
  std::size_t total() const { return stream_order + event_wait + host_sync + barrier + inferred; }
};

// Join nodes of the DAG by reason (indexed by JoinReason).
struct JoinCounts {
  std::size_t by_reason[kJoinReasonCount] = {};
  std::size_t of(JoinReason r) const { return by_reason[static_cast<std::size_t>(r)]; }
  std::size_t total() const {
    std::size_t t = 0;
    for (std::size_t n : by_reason) t += n;
    return t;
  }
};

struct SymbolContribution {
  std::string name;
  std::size_t dispatches_on_path = 0;
  double time_on_path_ns = 0;
  double fraction_of_path = 0;  // time_on_path / critical_path_ns
};

// Per kernel display name: the minimum and the median slack of its dispatches (analysis/kernel_slack.hpp).
struct KernelSlack {
  std::string name;                  // display name
  std::size_t dispatches = 0;        // dispatches of the kernel in the DAG
  std::size_t on_critical_path = 0;  // of them, on the critical path
  TimeNs min_slack_ns = 0;
  double median_slack_ns = 0;        // the mean of the two middle values for an even count
};

struct CriticalPathResult {
  std::size_t node_count = 0;           // work nodes (dispatches and copies); joins are counted apart
  EdgeCounts edges;
  JoinCounts joins;
  std::string ordering;                 // "stream", "queue", "mixed" (processes differ), "none" (no work)
  bool inferred_edges_enabled = false;  // DagOptions::infer_cross_stream was set
  TimeNs trace_start_ns = 0;
  double wall_span_ns = 0;              // measured: last end - first start
  double modeled_span_ns = 0;           // model makespan (equals wall span up to timestamp overlaps)
  double critical_path_ns = 0;          // busy + idle along the path, from its first node's start
  double critical_path_busy_ns = 0;     // sum of durations on the path
  double critical_path_idle_ns = 0;     // gaps on the path
  double serial_ns = 0;                 // sum of all node durations
  double parallelism = 0;               // serial / critical_path
  std::vector<NodeRef> path;            // in time order
  std::vector<EdgeKind> path_links;     // path_links[i]: the edge path[i] -> path[i+1] (size path - 1)
  std::size_t inferred_links_on_path = 0;  // links of the path that rest on an inferred edge
  std::vector<SymbolContribution> contributions;  // by time on path, descending
  std::vector<KernelSlack> kernel_slack;          // by median slack ascending, then name
  // Per node, in the order of `nodes` (all dispatches in trace order, then all copies): earliest start
  // (absolute, on the trace clock) and slack (latest start - earliest start), ns. Empty unless
  // DagOptions::node_rows.
  std::vector<NodeRef> nodes;
  std::vector<TimeNs> earliest_start;
  std::vector<TimeNs> slack;
  std::vector<uint8_t> on_path;
  // How it was scheduled (not an output): in submission order without per-node arrays, or with them (the
  // fallback when that order is not a topological order of the DAG).
  bool streamed = false;
};

CriticalPathResult analyze_critical_path(const Trace& trace, const DagOptions& options = {});

// What-if: scale the durations of kernels whose display name matches `pattern` (std::regex, searched)
// by `factor` and re-time the DAG.
struct WhatIf {
  std::string pattern;
  double factor = 1.0;
};
// Parses "REGEX=FACTOR"; throws rpl::Error(Usage) on a malformed spec or a bad regex / factor.
WhatIf parse_what_if(const std::string& spec);

struct WhatIfResult {
  WhatIf spec;                   // for the combined entry: pattern "p1=f1; p2=f2", factor 0
  bool combined = false;         // all scenarios applied together (factors multiply where patterns overlap)
  std::size_t matched_dispatches = 0;
  std::vector<std::string> matched_kernels;
  double baseline_ns = 0;        // modeled makespan with measured durations
  double predicted_ns = 0;       // modeled makespan with scaled durations
  double delta_ns = 0;           // predicted - baseline (negative = faster)
  double speedup = 1;            // baseline / predicted
  double naive_delta_ns = 0;     // what summing the saved kernel time would claim
};

// Runs each scenario separately, and all together as a last entry when there are several.
std::vector<WhatIfResult> run_what_if(const Trace& trace, const std::vector<WhatIf>& scenarios,
                                      const DagOptions& options = {});

}  // namespace rpl::analysis
