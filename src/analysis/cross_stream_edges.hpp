#pragma once
// The recorded cross-stream edges of the critical-path DAG, as a list: what the Perfetto export and the
// HTML timeline draw as arrows. They are the DAG's own edges (built by the same code as the critical path),
// less stream order (the order of the slices on each track) and less inferred edges.
//
// Host API operations are ordered against work by correlation id (submission order, per process):
//   - EventRecord(e, s) captures the last work submitted to s before it; StreamWaitEvent(s2, e) makes the
//     first work submitted to s2 after it depend on the work captured by e's latest record before the wait
//     (EdgeKind::EventWait).
//   - StreamSynchronize(s) waits for the last work submitted to s before it, EventSynchronize(e) for e's
//     captured work, DeviceSynchronize for the last work submitted to every stream of the process; the
//     first work the same thread submits to each stream after the call depends on it (EdgeKind::HostSync).
//     In the DAG such a wait is one join node (linear in streams); it is listed here as one edge into each
//     released work node, from the waited-for work that ended last.
// GPU barrier records (SyncSource::GpuBarrier) are ordered by GPU time: a signal (EventRecord) captures the
// last work that started on its stream at or before the signal; a wait (StreamWaitEvent) makes the first
// work starting on its stream at or after the wait depend on the latest signal of the event that started
// before the wait ended (EdgeKind::Barrier). Other kinds from GPU barriers are ignored.
//
// Work without a stream or with an unknown correlation id (0) cannot be placed against host operations and
// takes part only through GPU barriers (which need a stream) - i.e. not at all; edges within one stream are
// dropped (stream order already implies them). Duplicates are removed.
//
// Cost: O(N log N) for the per-stream orderings, O(log N) per sync op (times the process's streams for
// host syncs).
#include <vector>

#include "analysis/critical_path.hpp"
#include "model/trace.hpp"

namespace rpl::analysis {

struct DagEdge {
  NodeRef from;
  NodeRef to;
  EdgeKind kind;
};

// Sorted by (to, from) node: dispatches before copies, then by index.
std::vector<DagEdge> recorded_cross_stream_edges(const Trace& trace);

}  // namespace rpl::analysis
