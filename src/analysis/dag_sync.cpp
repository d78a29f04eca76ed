// Cross-stream edges: what Trace::sync_ops recorded (event record/wait, host synchronisation, GPU barriers)
// and, only when asked, edges inferred from timing.
#include <algorithm>
#include <numeric>

#include "analysis/dag_edges.hpp"

namespace rpl::analysis::dag {
namespace {

// How far to look along a stream for work launched by the synchronising thread, or for work that ended
// before a barrier: bounded so that a pathological trace cannot make the build quadratic.
constexpr std::size_t kScanLimit = 64;
constexpr uint32_t kNoList = kNoNode;

// Where a sync op sits in submission order: its correlation id, or (0) its host start time.
struct SubmitPoint {
  int64_t correlation = 0;
  TimeNs time = 0;
};

bool same_thread(uint32_t sync_thread, uint32_t op_thread) {
  return sync_thread == 0 || op_thread == 0 || sync_thread == op_thread;
}

// The work of each (process, stream), in submission order and in GPU time order. Ops with a correlation
// id are ordered by it; ops without one (and every op, for a sync without one) by GPU start.
class SubmitLists {
 public:
  // `with_time_order`: also keep every list in GPU start order (for sync ops without a correlation id
  // and GPU barriers); otherwise only the submission order is built.
  SubmitLists(const NodeTable& nodes, bool with_time_order, LargeVector<uint32_t>& scratch) : nodes_(nodes) {
    build(with_time_order, scratch);
  }

  uint32_t find(uint32_t process, Index stream) const {
    auto it = ids_.find(key(process, stream));
    return it == ids_.end() ? kNoList : it->second;
  }
  // Lists of one process: ids [first, second).
  std::pair<uint32_t, uint32_t> lists_of(uint32_t process) const {
    return {process_begin_[process], process_begin_[process + 1]};
  }

  // The last op of `list` submitted before `at`.
  NodeId last_before(uint32_t list, const SubmitPoint& at) const {
    if (list == kNoList) return kNoNode;
    if (at.correlation == 0) {
      auto q = first_starting_at(by_start_, begin_[list], begin_[list + 1], at.time);
      return q > begin_[list] ? by_start_[q - 1] : kNoNode;
    }
    const uint32_t b = begin_[list], ce = corr_end_[list], e = begin_[list + 1];
    auto p = std::lower_bound(by_submit_.begin() + b, by_submit_.begin() + ce, at.correlation,
                              [&](NodeId v, int64_t c) { return corr_[v] < c; });
    NodeId by_corr = p > by_submit_.begin() + b ? *(p - 1) : kNoNode;
    auto q = first_starting_at(by_submit_, ce, e, at.time);
    NodeId by_time = q > ce ? by_submit_[q - 1] : kNoNode;
    if (by_corr == kNoNode) return by_time;
    if (by_time == kNoNode) return by_corr;
    return nodes_.earlier(by_corr, by_time) ? by_time : by_corr;
  }

  // The first op of `list` submitted after `at` by `thread` (0 = any), within kScanLimit ops.
  NodeId first_after(uint32_t list, const SubmitPoint& at, uint32_t thread) const {
    if (list == kNoList) return kNoNode;
    if (at.correlation == 0) {
      uint32_t q = first_starting_at(by_start_, begin_[list], begin_[list + 1], at.time);
      return scan_for_thread(by_start_, q, begin_[list + 1], thread);
    }
    const uint32_t b = begin_[list], ce = corr_end_[list], e = begin_[list + 1];
    auto p = std::upper_bound(by_submit_.begin() + b, by_submit_.begin() + ce, at.correlation,
                              [&](int64_t c, NodeId v) { return c < corr_[v]; });
    NodeId by_corr = scan_for_thread(by_submit_, static_cast<uint32_t>(p - by_submit_.begin()), ce, thread);
    NodeId by_time = scan_for_thread(by_submit_, first_starting_at(by_submit_, ce, e, at.time), e, thread);
    if (by_corr == kNoNode) return by_time;
    if (by_time == kNoNode) return by_corr;
    return nodes_.earlier(by_corr, by_time) ? by_corr : by_time;
  }

  // GPU time: the last op of `list` that ended at or before `t`.
  NodeId last_ending_by(uint32_t list, TimeNs t) const {
    if (list == kNoList) return kNoNode;
    const uint32_t b = begin_[list];
    auto q = std::upper_bound(by_start_.begin() + b, by_start_.begin() + begin_[list + 1], t,
                              [&](TimeNs time, NodeId v) { return time < nodes_.start[v]; });
    for (std::size_t scanned = 0; q > by_start_.begin() + b && scanned < kScanLimit; ++scanned) {
      --q;
      if (nodes_.end(*q) <= t) return *q;
    }
    return kNoNode;
  }

  // GPU time: the first op of `list` that started at or after `t`.
  NodeId first_starting_from(uint32_t list, TimeNs t) const {
    if (list == kNoList) return kNoNode;
    uint32_t q = first_starting_at(by_start_, begin_[list], begin_[list + 1], t);
    return q < begin_[list + 1] ? by_start_[q] : kNoNode;
  }

 private:
  static uint64_t key(uint32_t process, Index stream) { return (uint64_t{process} << 32) | stream; }

  // First position in [b, e) of `order` (sorted by start) whose op starts at or after t.
  uint32_t first_starting_at(const LargeVector<NodeId>& order, uint32_t b, uint32_t e, TimeNs t) const {
    auto it = std::lower_bound(order.begin() + b, order.begin() + e, t,
                               [&](NodeId v, TimeNs time) { return nodes_.start[v] < time; });
    return static_cast<uint32_t>(it - order.begin());
  }

  NodeId scan_for_thread(const LargeVector<NodeId>& order, uint32_t from, uint32_t e, uint32_t thread) const {
    const uint32_t last = static_cast<uint32_t>(std::min<std::size_t>(e, std::size_t{from} + kScanLimit));
    for (uint32_t i = from; i < last; ++i)
      if (same_thread(thread, nodes_.thread(order[i]))) return order[i];
    return kNoNode;
  }

  void build(bool with_time_order, LargeVector<uint32_t>& list_of) {
    const std::size_t n = nodes_.size();
    // Lists in (process, stream) order, so that each process's lists are contiguous.
    list_of.resize(n);
    corr_.resize(n);
    std::vector<uint64_t> keys;
    uint64_t last_key = 0;
    uint32_t last_list = kNoList;
    // The one pass over the trace's records here; later passes read the compact copies.
    for (NodeId v = 0; v < n; ++v) {
      corr_[v] = nodes_.correlation(v);
      uint64_t k = key(nodes_.process[v], nodes_.stream(v));
      if (k != last_key || last_list == kNoList) {
        auto [it, inserted] = ids_.try_emplace(k, static_cast<uint32_t>(keys.size()));
        if (inserted) keys.push_back(k);
        last_key = k;
        last_list = it->second;
      }
      list_of[v] = last_list;
    }
    const uint32_t list_count = static_cast<uint32_t>(keys.size());
    std::vector<uint32_t> by_key(list_count), rank(list_count);
    std::iota(by_key.begin(), by_key.end(), 0u);
    std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    for (uint32_t r = 0; r < list_count; ++r) rank[by_key[r]] = r;
    for (auto& [k, id] : ids_) id = rank[id];
    for (uint32_t& l : list_of) l = rank[l];

    process_begin_.assign(nodes_.process_count + 1, list_count);
    for (uint32_t r = list_count; r-- > 0;) process_begin_[keys[by_key[r]] >> 32] = r;
    for (uint32_t p = nodes_.process_count; p-- > 0;)
      process_begin_[p] = std::min(process_begin_[p], process_begin_[p + 1]);

    begin_.assign(list_count + 1, 0);
    corr_end_.assign(list_count, 0);
    for (NodeId v = 0; v < n; ++v) {
      ++begin_[list_of[v] + 1];
      if (corr_[v] != 0) ++corr_end_[list_of[v]];
    }
    std::partial_sum(begin_.begin(), begin_.end(), begin_.begin());
    for (uint32_t l = 0; l < list_count; ++l) corr_end_[l] += begin_[l];

    if (with_time_order) by_start_.resize(n);
    by_submit_.resize(n);
    std::vector<uint32_t> next_start(begin_.begin(), begin_.end() - 1);
    std::vector<uint32_t> next_corr(begin_.begin(), begin_.end() - 1);
    std::vector<uint32_t> next_time(corr_end_);
    for (NodeId v = 0; v < n; ++v) {
      const uint32_t l = list_of[v];
      if (with_time_order) by_start_[next_start[l]++] = v;
      by_submit_[corr_[v] != 0 ? next_corr[l]++ : next_time[l]++] = v;
    }
    auto earlier = [&](NodeId a, NodeId b) { return nodes_.earlier(a, b); };
    auto submitted_earlier = [&](NodeId a, NodeId b) {
      int64_t ca = corr_[a], cb = corr_[b];
      return ca != cb ? ca < cb : nodes_.earlier(a, b);
    };
    auto sort_range = [](auto first, auto last, auto less) {
      if (!std::is_sorted(first, last, less)) std::sort(first, last, less);
    };
    for (uint32_t l = 0; l < list_count; ++l) {
      if (with_time_order) sort_range(by_start_.begin() + begin_[l], by_start_.begin() + begin_[l + 1], earlier);
      sort_range(by_submit_.begin() + begin_[l], by_submit_.begin() + corr_end_[l], submitted_earlier);
      sort_range(by_submit_.begin() + corr_end_[l], by_submit_.begin() + begin_[l + 1], earlier);
    }
  }

  const NodeTable& nodes_;
  std::unordered_map<uint64_t, uint32_t> ids_;
  std::vector<uint32_t> process_begin_;    // per dense process, its first list id; process_count + 1
  std::vector<uint32_t> begin_, corr_end_;  // per list: [begin, corr_end) ops with a correlation id
  LargeVector<int64_t> corr_;  // per node: correlation id (compact copy of the trace's)
  LargeVector<NodeId> by_submit_;
  LargeVector<NodeId> by_start_;  // empty unless built with_time_order
};

// Replays one process's sync ops in order, tracking what each event captured.
class SyncReplay {
 public:
  SyncReplay(const SubmitLists& lists, EdgeList& edges, uint32_t process)
      : lists_(lists), edges_(edges), process_(process) {}

  void host_op(const SyncOp& op) {
    const SubmitPoint at{op.correlation_id, op.start};
    const uint32_t list = lists_.find(process_, op.stream);
    switch (op.kind) {
      case SyncKind::EventRecord: captured_[op.event] = lists_.last_before(list, at); break;
      case SyncKind::StreamWaitEvent:
        edges_.add(captured(op.event), lists_.first_after(list, at, 0), EdgeKind::EventWait);
        break;
      case SyncKind::StreamSynchronize: host_waits({lists_.last_before(list, at)}, at, op.thread, EdgeKind::HostSync); break;
      case SyncKind::EventSynchronize: host_waits({captured(op.event)}, at, op.thread, EdgeKind::HostSync); break;
      case SyncKind::DeviceSynchronize: host_waits(last_on_every_stream(at), at, op.thread, EdgeKind::HostSync); break;
    }
  }

  // GPU barrier/signal records carry GPU timestamps and no submission order.
  void gpu_op(const SyncOp& op) {
    const uint32_t list = lists_.find(process_, op.stream);
    const SubmitPoint at{0, op.start};
    switch (op.kind) {
      case SyncKind::EventRecord: captured_[op.event] = lists_.last_ending_by(list, op.start); break;
      case SyncKind::StreamWaitEvent:
        edges_.add(captured(op.event), lists_.first_starting_from(list, op.start), EdgeKind::Barrier);
        break;
      case SyncKind::StreamSynchronize: host_waits({lists_.last_before(list, at)}, at, 0, EdgeKind::Barrier); break;
      case SyncKind::EventSynchronize: host_waits({captured(op.event)}, at, 0, EdgeKind::Barrier); break;
      case SyncKind::DeviceSynchronize: host_waits(last_on_every_stream(at), at, 0, EdgeKind::Barrier); break;
    }
  }

 private:
  NodeId captured(uint64_t event) const {
    auto it = captured_.find(event);
    return it == captured_.end() ? kNoNode : it->second;
  }

  std::vector<NodeId> last_on_every_stream(const SubmitPoint& at) const {
    std::vector<NodeId> sources;
    auto [first, last] = lists_.lists_of(process_);
    for (uint32_t l = first; l < last; ++l)
      if (NodeId u = lists_.last_before(l, at); u != kNoNode) sources.push_back(u);
    return sources;
  }

  // The host waited for `sources`; what it submits next, on any stream, runs after them.
  void host_waits(const std::vector<NodeId>& sources, const SubmitPoint& at, uint32_t thread, EdgeKind kind) {
    if (sources.empty() || (sources.size() == 1 && sources[0] == kNoNode)) return;
    auto [first, last] = lists_.lists_of(process_);
    for (uint32_t l = first; l < last; ++l) {
      NodeId target = lists_.first_after(l, at, thread);
      if (target == kNoNode) continue;
      for (NodeId u : sources) edges_.add(u, target, kind);
    }
  }

  const SubmitLists& lists_;
  EdgeList& edges_;
  uint32_t process_;
  std::unordered_map<uint64_t, NodeId> captured_;  // event -> op captured by its latest record
};

}  // namespace

void add_sync_edges(const NodeTable& nodes, EdgeList& edges, LargeVector<uint32_t>& scratch) {
  const auto& ops = nodes.trace.sync_ops;
  if (ops.empty() || nodes.size() == 0) return;
  // Group sync ops by (dense) process; ops of processes without work cannot order anything.
  std::vector<uint32_t> begin(nodes.process_count + 1, 0);
  std::vector<uint32_t> process_of(ops.size(), kNoNode);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    auto it = nodes.dense_process.find(ops[i].process);
    if (it == nodes.dense_process.end()) continue;
    process_of[i] = it->second;
    ++begin[it->second + 1];
  }
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  std::vector<uint32_t> grouped(begin.back());
  {
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (uint32_t i = 0; i < ops.size(); ++i)
      if (process_of[i] != kNoNode) grouped[next[process_of[i]]++] = i;
  }

  bool time_order_needed = false;
  for (uint32_t i : grouped)
    time_order_needed = time_order_needed || ops[i].source == SyncSource::GpuBarrier || ops[i].correlation_id == 0;
  const SubmitLists lists(nodes, time_order_needed, scratch);
  std::vector<uint32_t> host, gpu;
  for (uint32_t p = 0; p < nodes.process_count; ++p) {
    host.clear();
    gpu.clear();
    bool all_correlated = true;
    for (uint32_t j = begin[p]; j < begin[p + 1]; ++j) {
      const SyncOp& op = ops[grouped[j]];
      if (op.source == SyncSource::GpuBarrier) {
        gpu.push_back(grouped[j]);
      } else {
        host.push_back(grouped[j]);
        all_correlated = all_correlated && op.correlation_id != 0;
      }
    }
    // Host calls in submission order: correlation ids when every call has one, else host start time.
    std::sort(host.begin(), host.end(), [&](uint32_t a, uint32_t b) {
      const SyncOp &x = ops[a], &y = ops[b];
      if (all_correlated && x.correlation_id != y.correlation_id) return x.correlation_id < y.correlation_id;
      if (x.start != y.start) return x.start < y.start;
      if (x.correlation_id != y.correlation_id) return x.correlation_id < y.correlation_id;
      return a < b;
    });
    std::sort(gpu.begin(), gpu.end(), [&](uint32_t a, uint32_t b) {
      return ops[a].start != ops[b].start ? ops[a].start < ops[b].start : a < b;
    });
    SyncReplay host_replay(lists, edges, p);
    for (uint32_t i : host) host_replay.host_op(ops[i]);
    SyncReplay gpu_replay(lists, edges, p);
    for (uint32_t i : gpu) gpu_replay.gpu_op(ops[i]);
  }
}

void add_inferred_edges(const NodeTable& nodes, EdgeList& edges) {
  const std::size_t n = nodes.size();
  LargeVector<uint8_t> has_cross_pred(n, 0);
  for (const Edge& e : edges.edges)
    if (nodes.lane[e.src] != nodes.lane[e.dst]) has_cross_pred[e.dst] = 1;

  // Each process's ops by end time.
  std::vector<uint32_t> begin(nodes.process_count + 1, 0);
  for (uint32_t p : nodes.process) ++begin[p + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  LargeVector<NodeId> by_end(n);
  {
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (NodeId v = 0; v < n; ++v) by_end[next[nodes.process[v]]++] = v;
  }
  auto ends_earlier = [&](NodeId a, NodeId b) {
    return nodes.end(a) != nodes.end(b) ? nodes.end(a) < nodes.end(b) : a < b;
  };
  for (uint32_t p = 0; p < nodes.process_count; ++p)
    std::sort(by_end.begin() + begin[p], by_end.begin() + begin[p + 1], ends_earlier);

  for (NodeId v = 0; v < n; ++v) {
    if (has_cross_pred[v]) continue;
    const TimeNs t = nodes.start[v];
    const auto first = by_end.begin() + begin[nodes.process[v]];
    auto q = std::upper_bound(first, by_end.begin() + begin[nodes.process[v] + 1], t,
                              [&](TimeNs time, NodeId u) { return time < nodes.end(u); });
    for (std::size_t scanned = 0; q > first && scanned < kScanLimit; ++scanned) {
      const NodeId u = *--q;
      if (nodes.end(u) < t - kInferWindowNs) break;
      if (u != v && nodes.lane[u] != nodes.lane[v]) {
        edges.add(u, v, EdgeKind::Inferred);
        break;
      }
    }
  }
}

}  // namespace rpl::analysis::dag
