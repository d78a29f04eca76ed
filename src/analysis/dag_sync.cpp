// Cross-stream edges: what Trace::sync_ops recorded (event record/wait, host synchronisation, GPU barriers)
// and, only when asked, edges inferred from timing.
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

#include "analysis/dag_edges.hpp"
#include "analysis/fast_sort.hpp"
#include "analysis/packed_node_seq.hpp"
#include "support/errors.hpp"

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
// id are ordered by it; ops without one (and every op, for a sync without one) by GPU start. Each order is a
// PackedNodeSeq per list (about a byte per node: issue 32), not an array of 4-byte ids.
class SubmitLists {
 public:
  // `with_time_order`: also keep every list in GPU start order (for sync ops without a correlation id
  // and GPU barriers); otherwise only the submission order is built.
  SubmitLists(const NodeTable& nodes, bool with_time_order) : nodes_(nodes), with_time_order_(with_time_order) {
    build();
  }

  uint32_t list_of(NodeId v) const {
    return v < nodes_.dispatch_count ? list_by_launch_[nodes_.trace.dispatches.launch_of(v)]
                                     : list_by_copy_[v - nodes_.dispatch_count];
  }
  int64_t correlation(NodeId v) const { return nodes_.correlation(v); }

  uint32_t find(uint32_t process, Index stream) const {
    auto it = ids_.find(key(process, stream));
    return it == ids_.end() ? kNoList : it->second;
  }
  uint32_t list_count() const { return static_cast<uint32_t>(by_corr_.size()); }
  // Lists of one process: ids [first, second).
  std::pair<uint32_t, uint32_t> lists_of(uint32_t process) const {
    return {process_begin_[process], process_begin_[process + 1]};
  }

  // The last op of `list` submitted before `at`.
  NodeId last_before(uint32_t list, const SubmitPoint& at) const {
    if (list == kNoList) return kNoNode;
    if (at.correlation == 0) {
      const PackedNodeSeq& all = by_start_[list];
      std::size_t q = first_starting_at(all, at.time);
      return q > 0 ? all[q - 1] : kNoNode;
    }
    const PackedNodeSeq &corr = by_corr_[list], &time = by_time_[list];
    std::size_t p = corr.partition_point(0, corr.size(), [&](NodeId v) { return correlation(v) < at.correlation; });
    NodeId by_corr = p > 0 ? corr[p - 1] : kNoNode;
    std::size_t q = first_starting_at(time, at.time);
    NodeId by_time = q > 0 ? time[q - 1] : kNoNode;
    if (by_corr == kNoNode) return by_time;
    if (by_time == kNoNode) return by_corr;
    return nodes_.earlier(by_corr, by_time) ? by_time : by_corr;
  }

  // The first op of `list` submitted after `at` by `thread` (0 = any), within kScanLimit ops.
  NodeId first_after(uint32_t list, const SubmitPoint& at, uint32_t thread) const {
    if (list == kNoList) return kNoNode;
    if (at.correlation == 0) {
      const PackedNodeSeq& all = by_start_[list];
      return scan_for_thread(all, first_starting_at(all, at.time), thread);
    }
    const PackedNodeSeq &corr = by_corr_[list], &time = by_time_[list];
    std::size_t p = corr.partition_point(0, corr.size(), [&](NodeId v) { return correlation(v) <= at.correlation; });
    NodeId by_corr = scan_for_thread(corr, p, thread);
    NodeId by_time = scan_for_thread(time, first_starting_at(time, at.time), thread);
    if (by_corr == kNoNode) return by_time;
    if (by_time == kNoNode) return by_corr;
    return nodes_.earlier(by_corr, by_time) ? by_corr : by_time;
  }

  // GPU time: the last op of `list` that ended at or before `t`.
  NodeId last_ending_by(uint32_t list, TimeNs t) const {
    if (list == kNoList) return kNoNode;
    const PackedNodeSeq& all = by_start_[list];
    const std::size_t q = all.partition_point(0, all.size(), [&](NodeId v) { return nodes_.start(v) <= t; });
    // The kScanLimit ops before q, read forward, looked at backward.
    const std::size_t from = q - std::min(q, kScanLimit);
    NodeId window[kScanLimit];
    PackedNodeSeq::Reader r(all, from);
    for (std::size_t k = from; k < q; ++k) window[k - from] = r.next();
    for (std::size_t i = q - from; i-- > 0;)
      if (nodes_.end(window[i]) <= t) return window[i];
    return kNoNode;
  }

  // Whether `list` received work between two submission points: an op with a correlation id in [c_from, c_to)
  // (`targets`: in (c_from, c_to]), or one without, started in [t_from, t_to). SubmitWindows' question, asked of
  // one list (the same answer as its per-process arrays give).
  bool received(uint32_t list, bool targets, int64_t c_from, int64_t c_to, TimeNs t_from, TimeNs t_to) const {
    const PackedNodeSeq& corr = by_corr_[list];
    auto bound = [&](int64_t c) {  // targets: upper bound of c, else lower bound
      return targets ? corr.partition_point(0, corr.size(), [&](NodeId v) { return correlation(v) <= c; })
                     : corr.partition_point(0, corr.size(), [&](NodeId v) { return correlation(v) < c; });
    };
    return bound(c_from) < bound(c_to) || started(by_time_[list], t_from, t_to);
  }
  // Whether `list` has an op started in [t_from, t_to), its ops without correlation ids or not (time order only).
  bool started_between(uint32_t list, TimeNs t_from, TimeNs t_to) const {
    return with_time_order_ && started(by_start_[list], t_from, t_to);
  }

  // GPU time: the first op of `list` that started at or after `t`.
  NodeId first_starting_from(uint32_t list, TimeNs t) const {
    if (list == kNoList) return kNoNode;
    const PackedNodeSeq& all = by_start_[list];
    std::size_t q = first_starting_at(all, t);
    return q < all.size() ? all[q] : kNoNode;
  }

 private:
  static uint64_t key(uint32_t process, Index stream) { return (uint64_t{process} << 32) | stream; }

  // First position of `order` (sorted by start) whose op starts at or after t.
  std::size_t first_starting_at(const PackedNodeSeq& order, TimeNs t) const {
    return order.partition_point(0, order.size(), [&](NodeId v) { return nodes_.start(v) < t; });
  }

  bool started(const PackedNodeSeq& order, TimeNs t_from, TimeNs t_to) const {
    return first_starting_at(order, t_from) < first_starting_at(order, t_to);
  }

  NodeId scan_for_thread(const PackedNodeSeq& order, std::size_t from, uint32_t thread) const {
    const std::size_t last = std::min(order.size(), from + kScanLimit);
    PackedNodeSeq::Reader r(order, from);
    for (std::size_t i = from; i < last; ++i)
      if (NodeId v = r.next(); same_thread(thread, nodes_.thread(v))) return v;
    return kNoNode;
  }

  void build();

  const NodeTable& nodes_;
  bool with_time_order_;
  LargeVector<uint32_t> list_by_launch_, list_by_copy_;  // a node's list: by its launch, or by copy
  std::unordered_map<uint64_t, uint32_t> ids_;
  std::vector<uint32_t> process_begin_;  // per dense process, its first list id; process_count + 1
  // Per list: its ops with a correlation id by (correlation id, GPU order); those without, by GPU order; every
  // op by GPU order (only with_time_order).
  std::vector<PackedNodeSeq> by_corr_, by_time_, by_start_;
};

void SubmitLists::build() {
  // Lists in (process, stream) order, so that each process's lists are contiguous. A node's list is that of its
  // interned launch (which fixes its process and stream) or of its copy: no per-node array (issue 32).
  std::vector<uint64_t> keys;
  auto number = [&](uint32_t process, Index stream) {
    const uint64_t k = key(process, stream);
    auto [it, inserted] = ids_.try_emplace(k, static_cast<uint32_t>(keys.size()));
    if (inserted) keys.push_back(k);
    return it->second;
  };
  const DispatchTable& dispatches = nodes_.trace.dispatches;
  list_by_launch_.assign(nodes_.process_by_launch.size(), kNoList);
  for (Index l = 0; l < list_by_launch_.size(); ++l)  // launches no dispatch uses any more have no process
    if (nodes_.process_by_launch[l] != kNoNode)
      list_by_launch_[l] = number(nodes_.process_by_launch[l], dispatches.launch_placement(l).stream);
  list_by_copy_.resize(nodes_.process_by_copy.size());
  for (std::size_t i = 0; i < list_by_copy_.size(); ++i)
    list_by_copy_[i] = number(nodes_.process_by_copy[i], nodes_.trace.copies[i].stream);
  const uint32_t list_count = static_cast<uint32_t>(keys.size());
  std::vector<uint32_t> by_key(list_count), rank(list_count);
  std::iota(by_key.begin(), by_key.end(), 0u);
  std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  for (uint32_t r = 0; r < list_count; ++r) rank[by_key[r]] = r;
  for (auto& [k, id] : ids_) id = rank[id];
  for (uint32_t& l : list_by_launch_)
    if (l != kNoList) l = rank[l];
  for (uint32_t& l : list_by_copy_) l = rank[l];

  process_begin_.assign(nodes_.process_count + 1, list_count);
  for (uint32_t r = list_count; r-- > 0;) process_begin_[keys[by_key[r]] >> 32] = r;
  for (uint32_t p = nodes_.process_count; p-- > 0;)
    process_begin_[p] = std::min(process_begin_[p], process_begin_[p + 1]);

  auto earlier = [this](NodeId a, NodeId b) { return nodes_.earlier(a, b); };
  auto submitted_earlier = [this](NodeId a, NodeId b) {
    const int64_t ca = correlation(a), cb = correlation(b);
    return ca != cb ? ca < cb : nodes_.earlier(a, b);
  };
  std::vector<OrderBuilder<decltype(submitted_earlier)>> corr;
  std::vector<OrderBuilder<decltype(earlier)>> time, all;
  corr.reserve(list_count), time.reserve(list_count), all.reserve(with_time_order_ ? list_count : 0);
  for (uint32_t l = 0; l < list_count; ++l) {
    corr.emplace_back(submitted_earlier), time.emplace_back(earlier);
    if (with_time_order_) all.emplace_back(earlier);
  }
  const std::size_t n = nodes_.size();
  for (NodeId v = 0; v < n; ++v) {
    const uint32_t l = list_of(v);
    if (with_time_order_) all[l].add(v);
    if (correlation(v) != 0) corr[l].add(v);
    else time[l].add(v);
  }
  by_corr_.reserve(list_count), by_time_.reserve(list_count), by_start_.reserve(all.size());
  for (uint32_t l = 0; l < list_count; ++l) {
    by_corr_.push_back(corr[l].finish());
    by_time_.push_back(time[l].finish());
    if (with_time_order_) by_start_.push_back(all[l].finish());
  }
}

// One end of a window of submission: a host op's submission point, or open (before / after everything).
struct Bound {
  bool open = true;
  SubmitPoint at;
};

// Each process's work in the orders that SubmitLists places host ops by (correlation id; GPU start for work
// without one, and for every op against a sync without one), to find the lists (streams) that received work
// between two synchronisations. A list that received none has the same last op before, and the same first
// op after, both points: the earlier synchronisation's join already stands for it. A process of few lists asks
// each of them instead (issue 32: no per-node arrays; the arrays keep many streams and syncs linear).
class SubmitWindows {
 public:
  static constexpr uint32_t kAskEachList = 64;  // lists of a process up to which each is asked

  SubmitWindows(const NodeTable& nodes, const SubmitLists& lists, bool with_time_order, uint32_t list_count)
      : nodes_(nodes), lists_(lists), stamp_(list_count, 0) {
    const uint32_t processes = nodes.process_count;
    arrays_.assign(processes, 0);
    bool any = false;
    for (uint32_t p = 0; p < processes; ++p) {
      auto [first, last] = lists.lists_of(p);
      arrays_[p] = last - first > kAskEachList;
      any = any || arrays_[p];
    }
    std::vector<uint32_t> corr_count(processes + 1, 0), time_count(processes + 1, 0), all_count(processes + 1, 0);
    for (NodeId v = 0; any && v < nodes.size(); ++v) {
      const uint32_t p = nodes.process(v);
      if (!arrays_[p]) continue;
      ++(lists.correlation(v) != 0 ? corr_count : time_count)[p + 1];
      ++all_count[p + 1];
    }
    auto arrayed = [&](NodeId v) { return arrays_[nodes.process(v)] != 0; };
    group(corr_count, corr_begin_, corr_ops_, [&](NodeId v) { return arrayed(v) && lists.correlation(v) != 0; });
    group(time_count, time_begin_, time_ops_, [&](NodeId v) { return arrayed(v) && lists.correlation(v) == 0; });
    if (with_time_order) group(all_count, all_begin_, all_ops_, arrayed);
    auto by_corr = [&](NodeId a, NodeId b) {
      const int64_t ca = lists.correlation(a), cb = lists.correlation(b);
      return ca != cb ? ca < cb : a < b;
    };
    auto by_start = [&](NodeId a, NodeId b) { return nodes.earlier(a, b); };
    for (uint32_t p = 0; p < processes; ++p) {
      sort_range(corr_ops_, corr_begin_[p], corr_begin_[p + 1], by_corr);
      sort_range(time_ops_, time_begin_[p], time_begin_[p + 1], by_start);
      if (with_time_order) sort_range(all_ops_, all_begin_[p], all_begin_[p + 1], by_start);
    }
  }

  // The lists of `process` whose last op before a submission point can differ between `from` and `to`
  // (targets = false), or whose first op after one can (targets = true); the query point is `to` for the
  // former and `from` for the latter. Returns false, leaving `out` empty, when the two points cannot be
  // compared (one has a correlation id and the other not, or they are out of order): the caller then
  // looks at every list.
  bool lists_between(uint32_t process, const Bound& from, const Bound& to, bool targets,
                     std::vector<uint32_t>& out) {
    out.clear();
    const SubmitPoint& query = targets ? from.at : to.at;
    const bool by_corr = query.correlation != 0;
    for (const Bound* b : {&from, &to})
      if (!b->open && (b->at.correlation != 0) != by_corr) return false;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
    const int64_t c_from = from.open ? kMin : from.at.correlation, c_to = to.open ? kMax : to.at.correlation;
    const TimeNs t_from = from.open ? kMin : from.at.time, t_to = to.open ? kMax : to.at.time;
    if (c_from > c_to || t_from > t_to) return false;
    if (!arrays_[process]) {
      auto [first, last] = lists_.lists_of(process);
      for (uint32_t l = first; l < last; ++l)
        if (by_corr ? lists_.received(l, targets, c_from, c_to, t_from, t_to) : lists_.started_between(l, t_from, t_to))
          out.push_back(l);
      return true;
    }
    ++generation_;
    if (by_corr) {
      // Sources: correlation in [from, to); targets: in (from, to]. Work without one: start in [from, to).
      const auto first = corr_ops_.begin() + corr_begin_[process], last = corr_ops_.begin() + corr_begin_[process + 1];
      auto corr_less = [&](NodeId v, int64_t c) { return lists_.correlation(v) < c; };
      auto corr_greater = [&](int64_t c, NodeId v) { return c < lists_.correlation(v); };
      auto b = targets ? std::upper_bound(first, last, c_from, corr_greater) : std::lower_bound(first, last, c_from, corr_less);
      auto e = targets ? std::upper_bound(first, last, c_to, corr_greater) : std::lower_bound(first, last, c_to, corr_less);
      collect(b, e, out);
      collect_started(time_ops_, time_begin_[process], time_begin_[process + 1], t_from, t_to, out);
    } else {
      collect_started(all_ops_, all_begin_[process], all_begin_[process + 1], t_from, t_to, out);
    }
    return true;
  }

 private:
  template <typename Keep>
  void group(const std::vector<uint32_t>& count, std::vector<uint32_t>& begin, LargeVector<NodeId>& ops, Keep keep) {
    begin.assign(count.size(), 0);
    std::partial_sum(count.begin(), count.end(), begin.begin());
    ops.resize(begin.back());
    if (ops.empty()) return;
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (NodeId v = 0; v < nodes_.size(); ++v)
      if (keep(v)) ops[next[nodes_.process(v)]++] = v;
  }
  template <typename Less>
  static void sort_range(LargeVector<NodeId>& ops, uint32_t b, uint32_t e, Less less) {
    sort_runs(ops.begin() + b, ops.begin() + e, less);
  }
  void collect_started(const LargeVector<NodeId>& ops, uint32_t b, uint32_t e, TimeNs from, TimeNs to,
                       std::vector<uint32_t>& out) {
    auto start_less = [&](NodeId v, TimeNs t) { return nodes_.start(v) < t; };
    collect(std::lower_bound(ops.begin() + b, ops.begin() + e, from, start_less),
            std::lower_bound(ops.begin() + b, ops.begin() + e, to, start_less), out);
  }
  template <typename It>
  void collect(It b, It e, std::vector<uint32_t>& out) {
    for (; b < e; ++b) {
      const uint32_t l = lists_.list_of(*b);
      if (stamp_[l] != generation_) stamp_[l] = generation_, out.push_back(l);
    }
  }

  const NodeTable& nodes_;
  const SubmitLists& lists_;
  std::vector<uint8_t> arrays_;                                 // per dense process: asked through the arrays
  std::vector<uint32_t> corr_begin_, time_begin_, all_begin_;  // per dense process + 1
  LargeVector<NodeId> corr_ops_, time_ops_, all_ops_;          // all_ops_ empty unless with_time_order
  std::vector<uint32_t> stamp_;                                 // per list: generation it was last collected in
  uint32_t generation_ = 0;
};

// Replays one process's sync ops in order, tracking what each event captured. Host and GPU-barrier ops
// are replayed apart: `joins` says which of the two this replay is.
class SyncReplay {
 public:
  SyncReplay(const SubmitLists& lists, SubmitWindows* windows, EdgeList& edges, uint32_t process, JoinReason joins)
      : lists_(lists), windows_(windows), edges_(edges), process_(process), reason_(joins),
        kind_(joins == JoinReason::HostSync ? EdgeKind::HostSync : EdgeKind::Barrier) {}

  void host_op(const SyncOp& op) {
    const SubmitPoint at{op.correlation_id, op.start};
    const uint32_t list = lists_.find(process_, op.stream);
    switch (op.kind) {
      case SyncKind::EventRecord: captured_[op.event] = lists_.last_before(list, at); break;
      case SyncKind::StreamWaitEvent:
        edges_.add(captured(op.event), lists_.first_after(list, at, 0), EdgeKind::EventWait);
        break;
      case SyncKind::StreamSynchronize: wait({op.thread, at, false, lists_.last_before(list, at)}); break;
      case SyncKind::EventSynchronize: wait({op.thread, at, false, captured(op.event)}); break;
      case SyncKind::DeviceSynchronize: wait({op.thread, at, true, kNoNode}); break;
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
      case SyncKind::StreamSynchronize: wait({0, at, false, lists_.last_before(list, at)}); break;
      case SyncKind::EventSynchronize: wait({0, at, false, captured(op.event)}); break;
      case SyncKind::DeviceSynchronize: wait({0, at, true, kNoNode}); break;
    }
  }

  // Turns the recorded waits into join nodes (nothing to do in the pairwise form, done as they came).
  void finish() {
    std::stable_sort(waits_.begin(), waits_.end(), [](const Wait& a, const Wait& b) { return a.thread < b.thread; });
    for (std::size_t first = 0, last; first < waits_.size(); first = last) {
      last = first;
      while (last < waits_.size() && waits_[last].thread == waits_[first].thread) ++last;
      join_thread(first, last);
    }
    waits_.clear();
  }

 private:
  // A host wait: the calling thread, where it sits in submission order, and what it waited for: every
  // stream's last work (all_streams) or one op (`source`, kNoNode when none).
  struct Wait {
    uint32_t thread;
    SubmitPoint at;
    bool all_streams;
    NodeId source;
  };

  NodeId captured(uint64_t event) const {
    auto it = captured_.find(event);
    return it == captured_.end() ? kNoNode : it->second;
  }

  void wait(const Wait& w) {
    if (windows_ != nullptr) {
      waits_.push_back(w);
      return;
    }
    // The pairwise form: the host waited for `sources`; what it submits next, on any stream, runs after them.
    sources_.clear();
    if (w.all_streams) {
      auto [first, last] = lists_.lists_of(process_);
      for (uint32_t l = first; l < last; ++l)
        if (NodeId u = lists_.last_before(l, w.at); u != kNoNode) sources_.push_back(u);
    } else if (w.source != kNoNode) {
      sources_.push_back(w.source);
    }
    if (sources_.empty()) return;
    auto [first, last] = lists_.lists_of(process_);
    for (uint32_t l = first; l < last; ++l) {
      NodeId target = lists_.first_after(l, w.at, w.thread);
      if (target == kNoNode) continue;
      for (NodeId u : sources_) edges_.add(u, target, kind_);
    }
  }

  // The lists to look at between two points: those that received work in between, or all of them.
  const std::vector<uint32_t>& lists_between(const Bound& from, const Bound& to, bool targets) {
    if (!windows_->lists_between(process_, from, to, targets, window_lists_)) {
      auto [first, last] = lists_.lists_of(process_);
      for (uint32_t l = first; l < last; ++l) window_lists_.push_back(l);
    }
    return window_lists_;
  }

  // One thread's waits [first, last), in submission order, become a chain of joins. Each join's
  // predecessors: the previous join of the thread (the thread called this wait after that one returned, so
  // all it waited for is done) and what this wait adds: for a device-wide wait, the last op of each list
  // that received work since the thread's previous device-wide wait; otherwise its one source. Its
  // successors: the next join of the thread and the first op the thread submitted after the wait on each
  // list that received work before the thread's next wait (the other lists' first op after this wait is
  // also the first after the next one, released through the chain). Edges: O(ops + waits) per thread.
  void join_thread(std::size_t first, std::size_t last) {
    NodeId previous_join = kNoNode;
    Bound previous_device_wait;  // open: none yet
    for (std::size_t i = first; i < last; ++i) {
      const Wait& w = waits_[i];
      sources_.clear();
      if (w.all_streams) {
        for (uint32_t l : lists_between(previous_device_wait, Bound{false, w.at}, false))
          if (NodeId u = lists_.last_before(l, w.at); u != kNoNode) sources_.push_back(u);
        previous_device_wait = Bound{false, w.at};
      } else if (w.source != kNoNode) {
        sources_.push_back(w.source);
      }
      if (sources_.empty() && previous_join == kNoNode) continue;  // nothing was submitted before it
      const NodeId join = edges_.add_join(reason_);
      for (NodeId u : sources_) edges_.add(u, join, kind_);
      edges_.add(previous_join, join, kind_);
      const Bound next = i + 1 < last ? Bound{false, waits_[i + 1].at} : Bound{};
      for (uint32_t l : lists_between(Bound{false, w.at}, next, true))
        edges_.add(join, lists_.first_after(l, w.at, w.thread), kind_);
      previous_join = join;
    }
  }

  const SubmitLists& lists_;
  SubmitWindows* windows_;  // null: the pairwise form
  EdgeList& edges_;
  uint32_t process_;
  JoinReason reason_;
  EdgeKind kind_;
  std::unordered_map<uint64_t, NodeId> captured_;  // event -> op captured by its latest record
  std::vector<Wait> waits_;
  std::vector<NodeId> sources_;
  std::vector<uint32_t> window_lists_;
};

}  // namespace

NodeId EdgeList::add_join(JoinReason reason) {
  const std::size_t id = std::size_t{first_join} + join_reasons.size();
  if (id >= kNoNode) throw Error(ExitCode::Internal, "critical path: too many nodes (" + std::to_string(id) + ")");
  join_reasons.push_back(reason);
  return static_cast<NodeId>(id);
}

void add_sync_edges(const NodeTable& nodes, EdgeList& edges, bool pairwise) {
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
  const SubmitLists lists(nodes, time_order_needed);
  std::optional<SubmitWindows> windows;
  if (!pairwise) windows.emplace(nodes, lists, time_order_needed, lists.list_count());
  SubmitWindows* joins = windows ? &*windows : nullptr;
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
    SyncReplay host_replay(lists, joins, edges, p, JoinReason::HostSync);
    for (uint32_t i : host) host_replay.host_op(ops[i]);
    host_replay.finish();
    SyncReplay gpu_replay(lists, joins, edges, p, JoinReason::GpuBarrier);
    for (uint32_t i : gpu) gpu_replay.gpu_op(ops[i]);
    gpu_replay.finish();
  }
}

void add_inferred_edges(const NodeTable& nodes, EdgeList& edges) {
  const std::size_t n = nodes.size();
  LargeVector<uint8_t> has_cross_pred(n, 0);
  // The lanes a join stands for: its work predecessors' and, through earlier joins, theirs. A work node
  // released by a join has a cross-lane predecessor when the join holds work of another lane.
  struct JoinLanes {
    uint32_t lane = kJoinLane;  // kJoinLane: no work yet
    bool several = false;
    void add(uint32_t l) {
      if (lane == kJoinLane) lane = l;
      else if (l != lane) several = true;
    }
    void add(const JoinLanes& o) {
      if (o.lane != kJoinLane) add(o.lane);
      several = several || o.several;
    }
  };
  std::vector<JoinLanes> join_lanes(edges.join_reasons.size());
  std::vector<const Edge*> join_to_join;
  for (const Edge& e : edges.edges) {
    if (!edges.is_join(e.dst)) continue;
    if (edges.is_join(e.src)) join_to_join.push_back(&e);
    else join_lanes[e.dst - n].add(nodes.lane[e.src]);
  }
  // A join's join predecessors have lower ids: in target order, each is complete before it is read.
  std::sort(join_to_join.begin(), join_to_join.end(), [](const Edge* a, const Edge* b) { return a->dst < b->dst; });
  for (const Edge* e : join_to_join) join_lanes[e->dst - n].add(join_lanes[e->src - n]);
  for (const Edge& e : edges.edges) {
    if (edges.is_join(e.dst)) continue;
    if (!edges.is_join(e.src)) {
      if (nodes.lane[e.src] != nodes.lane[e.dst]) has_cross_pred[e.dst] = 1;
      continue;
    }
    const JoinLanes& j = join_lanes[e.src - n];
    if (j.several || (j.lane != kJoinLane && j.lane != nodes.lane[e.dst])) has_cross_pred[e.dst] = 1;
  }

  // Each process's ops by end time.
  std::vector<uint32_t> begin(nodes.process_count + 1, 0);
  for (NodeId v = 0; v < n; ++v) ++begin[nodes.process(v) + 1];
  std::partial_sum(begin.begin(), begin.end(), begin.begin());
  LargeVector<NodeId> by_end(n);
  {
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (NodeId v = 0; v < n; ++v) by_end[next[nodes.process(v)]++] = v;
  }
  auto ends_earlier = [&](NodeId a, NodeId b) {
    return nodes.end(a) != nodes.end(b) ? nodes.end(a) < nodes.end(b) : a < b;
  };
  for (uint32_t p = 0; p < nodes.process_count; ++p)
    sort_runs(by_end.begin() + begin[p], by_end.begin() + begin[p + 1], ends_earlier);

  for (NodeId v = 0; v < n; ++v) {
    if (has_cross_pred[v]) continue;
    const TimeNs t = nodes.start(v);
    const auto first = by_end.begin() + begin[nodes.process(v)];
    auto q = std::upper_bound(first, by_end.begin() + begin[nodes.process(v) + 1], t,
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
