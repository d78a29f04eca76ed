#include "analysis/dag_edges.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace rpl::analysis {
namespace {

// A node as placed in one ordering (submission order or GPU start order) of its stream.
struct Placed {
  int64_t key;  // correlation id, or GPU start time
  NodeRef ref;
  uint32_t thread;
};

bool before(const Placed& a, const Placed& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.ref.kind != b.ref.kind) return a.ref.kind < b.ref.kind;
  return a.ref.index < b.ref.index;
}

// Last element with key < bound (strict) or <= bound (inclusive); nullopt if none.
std::optional<NodeRef> last_before(const std::vector<Placed>& v, int64_t bound, bool inclusive) {
  auto it = inclusive ? std::upper_bound(v.begin(), v.end(), bound, [](int64_t b, const Placed& p) { return b < p.key; })
                      : std::lower_bound(v.begin(), v.end(), bound, [](const Placed& p, int64_t b) { return p.key < b; });
  if (it == v.begin()) return std::nullopt;
  return std::prev(it)->ref;
}

// First element with key > bound (strict) or >= bound (inclusive); nullopt if none.
std::optional<NodeRef> first_after(const std::vector<Placed>& v, int64_t bound, bool inclusive) {
  auto it = inclusive ? std::lower_bound(v.begin(), v.end(), bound, [](const Placed& p, int64_t b) { return p.key < b; })
                      : std::upper_bound(v.begin(), v.end(), bound, [](int64_t b, const Placed& p) { return b < p.key; });
  if (it == v.end()) return std::nullopt;
  return it->ref;
}

uint64_t pair_key(uint32_t a, uint64_t b) { return (static_cast<uint64_t>(a) << 32) ^ b; }

struct EventKey {
  Index process;
  uint64_t event;
  bool operator==(const EventKey&) const = default;
};
struct EventKeyHash {
  std::size_t operator()(const EventKey& k) const {
    return std::hash<uint64_t>()(k.event * 0x9E3779B97F4A7C15ull ^ k.process);
  }
};

// The captures of one event, in the order of the ordering key (correlation id or GPU time).
struct Capture {
  int64_t key;
  std::optional<NodeRef> captured;
};
using CaptureLog = std::unordered_map<EventKey, std::vector<Capture>, EventKeyHash>;

std::optional<NodeRef> captured_by_latest(const CaptureLog& log, EventKey key, int64_t bound, bool inclusive) {
  auto it = log.find(key);
  if (it == log.end()) return std::nullopt;
  const auto& v = it->second;
  auto pos = inclusive ? std::upper_bound(v.begin(), v.end(), bound, [](int64_t b, const Capture& c) { return b < c.key; })
                       : std::lower_bound(v.begin(), v.end(), bound, [](const Capture& c, int64_t b) { return c.key < b; });
  if (pos == v.begin()) return std::nullopt;
  return std::prev(pos)->captured;
}

class EdgeBuilder {
 public:
  explicit EdgeBuilder(const Trace& t) : t_(t), by_submission_(t.streams.size()) {}

  std::vector<DagEdge> build() {
    bool any_host = false, any_barrier = false;
    for (const SyncOp& op : t_.sync_ops) {
      (op.source == SyncSource::HostApi ? any_host : any_barrier) = true;
      if (op.source == SyncSource::HostApi && op.kind != SyncKind::EventRecord && op.kind != SyncKind::StreamWaitEvent)
        any_host_sync_ = true;
    }
    if (any_host) index_submission_order();
    if (any_barrier) index_gpu_order();
    if (any_host) host_edges();
    if (any_barrier) barrier_edges();
    return finish();
  }

 private:
  Index stream_of(NodeRef n) const {
    return n.kind == NodeKind::Dispatch ? t_.dispatches[n.index].stream : t_.copies[n.index].stream;
  }
  Index process_of_stream(Index s) const { return t_.streams[s].process; }

  template <typename F>
  void for_each_node(F&& f) const {
    for (Index i = 0; i < t_.dispatches.size(); ++i) {
      const Dispatch& d = t_.dispatches[i];
      f(NodeRef{NodeKind::Dispatch, i}, d.stream, d.correlation_id, d.start, d.thread);
    }
    for (Index i = 0; i < t_.copies.size(); ++i) {
      const MemoryCopy& c = t_.copies[i];
      f(NodeRef{NodeKind::Copy, i}, c.stream, c.correlation_id, c.start, c.thread);
    }
  }

  void index_submission_order() {
    streams_of_process_.assign(t_.processes.size(), {});
    for_each_node([&](NodeRef n, Index stream, int64_t corr, TimeNs, uint32_t thread) {
      if (stream == kNoIndex || corr == 0) return;
      by_submission_[stream].push_back({corr, n, thread});
      // Per (stream, thread) only for host syncs, which bind the syncing thread's next work.
      if (any_host_sync_) by_stream_thread_[pair_key(stream, thread)].push_back({corr, n, thread});
    });
    for (Index s = 0; s < by_submission_.size(); ++s) {
      auto& v = by_submission_[s];
      if (v.empty()) continue;
      std::sort(v.begin(), v.end(), before);
      Index p = process_of_stream(s);
      if (p < streams_of_process_.size()) streams_of_process_[p].push_back(s);
    }
    for (auto& [key, v] : by_stream_thread_) std::sort(v.begin(), v.end(), before);

    // Event records, per event in submission order.
    for (const SyncOp& op : t_.sync_ops) {
      if (op.source != SyncSource::HostApi || op.kind != SyncKind::EventRecord || op.stream == kNoIndex) continue;
      records_[{process_of_stream(op.stream), op.event}].push_back(
          {op.correlation_id, last_before(by_submission_[op.stream], op.correlation_id, false)});
    }
    for (auto& [key, v] : records_)
      std::stable_sort(v.begin(), v.end(), [](const Capture& a, const Capture& b) { return a.key < b.key; });
  }

  void index_gpu_order() {
    by_start_.assign(t_.streams.size(), {});
    for_each_node([&](NodeRef n, Index stream, int64_t, TimeNs start, uint32_t thread) {
      if (stream != kNoIndex) by_start_[stream].push_back({start, n, thread});
    });
    for (auto& v : by_start_) std::sort(v.begin(), v.end(), before);
    for (const SyncOp& op : t_.sync_ops) {
      if (op.source != SyncSource::GpuBarrier || op.kind != SyncKind::EventRecord || op.stream == kNoIndex) continue;
      signals_[{process_of_stream(op.stream), op.event}].push_back(
          {op.start, last_before(by_start_[op.stream], op.start, true)});
    }
    for (auto& [key, v] : signals_)
      std::stable_sort(v.begin(), v.end(), [](const Capture& a, const Capture& b) { return a.key < b.key; });
  }

  void host_edges() {
    std::vector<NodeRef> waited;
    for (const SyncOp& op : t_.sync_ops) {
      if (op.source != SyncSource::HostApi) continue;
      const int64_t c = op.correlation_id;
      Index process = op.stream != kNoIndex ? process_of_stream(op.stream) : op.process;
      switch (op.kind) {
        case SyncKind::EventRecord:
          break;  // indexed above
        case SyncKind::StreamWaitEvent: {
          if (op.stream == kNoIndex) break;
          auto from = captured_by_latest(records_, {process, op.event}, c, false);
          auto to = first_after(by_submission_[op.stream], c, false);
          if (from && to) add(*from, *to, EdgeKind::EventWait);
          break;
        }
        case SyncKind::StreamSynchronize:
        case SyncKind::EventSynchronize:
        case SyncKind::DeviceSynchronize: {
          waited.clear();
          if (op.kind == SyncKind::StreamSynchronize && op.stream != kNoIndex) {
            if (auto n = last_before(by_submission_[op.stream], c, false)) waited.push_back(*n);
          } else if (op.kind == SyncKind::EventSynchronize) {
            if (auto n = captured_by_latest(records_, {process, op.event}, c, false)) waited.push_back(*n);
          } else if (op.kind == SyncKind::DeviceSynchronize && process < streams_of_process_.size()) {
            for (Index s : streams_of_process_[process])
              if (auto n = last_before(by_submission_[s], c, false)) waited.push_back(*n);
          }
          if (waited.empty() || process >= streams_of_process_.size()) break;
          for (Index s : streams_of_process_[process]) {
            auto it = by_stream_thread_.find(pair_key(s, op.thread));
            if (it == by_stream_thread_.end()) continue;
            if (auto to = first_after(it->second, c, false))
              for (NodeRef from : waited) add(from, *to, EdgeKind::HostSync);
          }
          break;
        }
      }
    }
  }

  void barrier_edges() {
    for (const SyncOp& op : t_.sync_ops) {
      if (op.source != SyncSource::GpuBarrier || op.kind != SyncKind::StreamWaitEvent || op.stream == kNoIndex)
        continue;
      auto from = captured_by_latest(signals_, {process_of_stream(op.stream), op.event}, op.end, true);
      auto to = first_after(by_start_[op.stream], op.start, true);
      if (from && to) add(*from, *to, EdgeKind::Barrier);
    }
  }

  void add(NodeRef from, NodeRef to, EdgeKind kind) {
    if (stream_of(from) == stream_of(to)) return;  // stream order already implies it
    edges_.push_back({from, to, kind});
  }

  std::vector<DagEdge> finish() {
    auto key = [](NodeRef n) { return (static_cast<uint64_t>(n.kind) << 32) | n.index; };
    std::sort(edges_.begin(), edges_.end(), [&](const DagEdge& a, const DagEdge& b) {
      if (key(a.to) != key(b.to)) return key(a.to) < key(b.to);
      if (key(a.from) != key(b.from)) return key(a.from) < key(b.from);
      return a.kind < b.kind;
    });
    // One edge per (from, to): the first kind in EdgeKind order.
    auto last = std::unique(edges_.begin(), edges_.end(), [&](const DagEdge& a, const DagEdge& b) {
      return key(a.to) == key(b.to) && key(a.from) == key(b.from);
    });
    edges_.erase(last, edges_.end());
    return std::move(edges_);
  }

  const Trace& t_;
  bool any_host_sync_ = false;
  std::vector<std::vector<Placed>> by_submission_;           // per stream, by correlation id
  std::unordered_map<uint64_t, std::vector<Placed>> by_stream_thread_;  // per (stream, thread), by correlation id
  std::vector<std::vector<Index>> streams_of_process_;      // streams with work, per process
  std::vector<std::vector<Placed>> by_start_;               // per stream, by GPU start
  CaptureLog records_;                                      // host event records
  CaptureLog signals_;                                      // GPU barrier signals
  std::vector<DagEdge> edges_;
};

}  // namespace

std::vector<DagEdge> recorded_cross_stream_edges(const Trace& trace) { return EdgeBuilder(trace).build(); }

}  // namespace rpl::analysis
