// The streamed schedule (dag_edges.hpp, streamed_schedule): the critical path, the slack and the per-kernel slack
// summary without the DAG's per-node arrays (issue 32: they were about 20 bytes per node above the trace at the
// run's peak). The work is visited in submission order; stream order is each lane's last node (checked to be the
// lane's (start, end, id) predecessor), the recorded edges and the joins keep state per source, target and join.
//
// Forward: earliest finish EF(v) = max over preds EF(u) + gap(v) + d(v), as forward_schedule; the finishes go to a
// temporary file in visiting order. Per edge target: its gap and its binding predecessor (the path's rule of
// walk_critical_path), for the backward pass. Backward, over the same order reversed: the latest finish LF(v) from
// what v's successors pushed (the lane's next node: its bound, or, for a node whose only predecessor is its lane
// predecessor, its latest start with the gap left to compute from the predecessor's end, known only then), the
// slack LF - EF, and the path, followed from the node that finishes last through the binding predecessors.
#include <algorithm>
#include <limits>

#include "analysis/dag_edges.hpp"
#include "analysis/kernel_slack.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/resident_memory.hpp"

namespace rpl::analysis::dag {
namespace {

constexpr TimeNs kUnset = std::numeric_limits<TimeNs>::min();

void log_stream_memory(const char* step) {
  if (log::level() < log::Level::Debug) return;
  const ResidentMemory m = resident_memory();
  log::debug("critical path: {}, RSS {} MB (peak so far {} MB)", step, m.now_kb / 1024, m.peak_kb / 1024);
}

// Work nodes in submission order: the dispatches in id order, each process's copies in id order merged into its
// dispatches by correlation id (a dispatch first on ties; correlation ids order the calls of one process only), the
// copies left after a process's last dispatch at the end. The order is kept (one bit per node, and the copies in
// the order taken) so that the backward pass replays it exactly reversed.
class SubmissionOrder {
 public:
  explicit SubmissionOrder(const NodeTable& nodes)
      : nodes_(nodes), dispatches_(nodes.dispatch_count), copy_at_((nodes.size() + 63) / 64, 0),
        copies_of_(nodes.process_count), next_copy_(nodes.process_count, 0) {
    for (std::size_t i = 0; i < nodes.size() - dispatches_; ++i)
      copies_of_[nodes.process_by_copy[i]].push_back(static_cast<NodeId>(dispatches_ + i));
    // A copy's record arrives when the copy ends, not when it was submitted (CUPTI's memcpy records of a PyTorch
    // step: 81 of 298 out of correlation order), so each process's copies are put in submission order here; the
    // merge below takes them by correlation id. (Copies are looked up by value, not by a cursor: any order works.)
    auto submitted_first = [&](NodeId a, NodeId b) { return nodes.correlation(a) < nodes.correlation(b); };
    for (auto& copies : copies_of_)
      if (!std::is_sorted(copies.begin(), copies.end(), submitted_first))
        std::stable_sort(copies.begin(), copies.end(), submitted_first);
    copy_sequence_.reserve(nodes.size() - dispatches_);
  }
  NodeId next() {
    NodeId v = kNoNode;
    if (d_ < dispatches_) {
      const uint32_t p = nodes_.process(static_cast<NodeId>(d_));
      if (next_copy_[p] < copies_of_[p].size() &&
          nodes_.correlation(copies_of_[p][next_copy_[p]]) < nodes_.correlation(static_cast<NodeId>(d_)))
        v = copies_of_[p][next_copy_[p]++];
      else
        v = static_cast<NodeId>(d_++);
    } else {
      while (next_copy_[rest_] == copies_of_[rest_].size()) ++rest_;  // the copies after every dispatch
      v = copies_of_[rest_][next_copy_[rest_]++];
    }
    if (v >= dispatches_) {
      copy_at_[p_ >> 6] |= uint64_t{1} << (p_ & 63);
      copy_sequence_.push_back(v);
    }
    ++p_;
    return v;
  }
  // After every next(): the same nodes again from the last.
  NodeId previous() {
    --p_;
    if (!((copy_at_[p_ >> 6] >> (p_ & 63)) & 1)) return static_cast<NodeId>(--d_);
    const NodeId v = copy_sequence_.back();
    copy_sequence_.pop_back();
    return v;
  }
  std::size_t position() const { return p_; }

 private:
  const NodeTable& nodes_;
  std::size_t dispatches_, d_ = 0, p_ = 0;
  LargeVector<uint64_t> copy_at_;
  std::vector<std::vector<NodeId>> copies_of_;  // per dense process, its copies in id order
  std::vector<std::size_t> next_copy_;
  std::size_t rest_ = 0;
  LargeVector<NodeId> copy_sequence_;  // the copies in the order taken
};

// Finds nodes in a sorted list of ids alongside a pass that visits the dispatches in ascending (forward) or
// descending (backward) id order: a cursor for them, a binary search for the copies (taken per process).
class SortedCursor {
 public:
  SortedCursor(const LargeVector<NodeId>& ids, std::size_t dispatch_count) : ids_(ids), dispatch_count_(dispatch_count) {
    split_ = static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), static_cast<NodeId>(dispatch_count)) - ids.begin());
    rewind(true);
  }
  void rewind(bool forward) {
    forward_ = forward;
    at_ = forward ? 0 : split_;
  }
  // The index of v in the list, or npos; dispatches must come in the pass's order.
  std::size_t find(NodeId v) {
    if (v >= dispatch_count_) {
      auto it = std::lower_bound(ids_.begin() + static_cast<std::ptrdiff_t>(split_), ids_.end(), v);
      return it != ids_.end() && *it == v ? static_cast<std::size_t>(it - ids_.begin()) : npos;
    }
    if (forward_) {
      while (at_ < split_ && ids_[at_] < v) ++at_;
      return at_ < split_ && ids_[at_] == v ? at_ : npos;
    }
    while (at_ > 0 && ids_[at_ - 1] > v) --at_;
    return at_ > 0 && ids_[at_ - 1] == v ? at_ - 1 : npos;
  }
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

 private:
  const LargeVector<NodeId>& ids_;
  std::size_t dispatch_count_, split_ = 0, at_ = 0;
  bool forward_ = true;
};

// A node's binding predecessor as walk_critical_path picks it: the work it stands for, the edge's kind, and
// whether it is the lane predecessor.
template <typename T>
struct Binding {
  NodeId work = kNoNode;
  T finish = 0;
  EdgeKind kind = EdgeKind::StreamOrder;
  bool lane = false;
};

// T: the type of the finishes, TimeNs (the schedule) or double (what-if's scaled durations, forward only).
template <typename T>
class Streamer {
 public:
  static constexpr T kUnsetFinish = std::numeric_limits<T>::lowest();

  Streamer(EdgeSet& es, bool node_rows)
      : nodes_(*es.nodes), extra_(es.extra), lane_(nodes_.lane), work_(nodes_.size()),
        joins_(es.extra.join_reasons.size()), trace_start_(es.trace_start), node_rows_(node_rows) {}

  // The makespan only, with the given durations of the work nodes.
  template <typename Duration>
  std::optional<T> makespan(Duration duration_of) {
    index_edges();
    SubmissionOrder order(nodes_);
    if (!forward(order, nullptr, duration_of)) return std::nullopt;
    return makespan_;
  }

  std::optional<StreamedSchedule> run() {
    index_edges();
    SubmissionOrder order(nodes_);
    auto finishes = SpilledColumn<TimeNs>::appender(work_ >= (std::size_t{1} << 17));
    if (!forward(order, &finishes, [&](NodeId v) { return nodes_.times.duration(v); })) return std::nullopt;
    finishes.seal();
    log_stream_memory("streamed forward pass");
    StreamedSchedule out;
    out.makespan = makespan_;
    out.counts = counts_;
    backward(order, finishes, out);
    log_stream_memory("streamed backward pass");
    return out;
  }

 private:
  // The recorded edges by target, deduplicated as build_preds does (a repeated source keeps its lowest kind):
  // ranges of extra_.edges per work target (dst_ids_) and per join.
  void index_edges() {
    auto& e = extra_.edges;
    std::sort(e.begin(), e.end());
    keep_.assign(e.size(), 1);
    for (std::size_t i = 1; i < e.size(); ++i)
      if (e[i].dst == e[i - 1].dst && e[i].src == e[i - 1].src) keep_[i] = 0;
    join_first_.assign(joins_ + 1, static_cast<uint32_t>(e.size()));
    for (std::size_t i = e.size(); i-- > 0;) {
      const NodeId v = e[i].dst;
      if (v >= work_) join_first_[v - work_] = static_cast<uint32_t>(i);
      if (v >= work_ || !keep_[i]) continue;
      if (e[i].src < work_) src_ids_.push_back(e[i].src);
    }
    for (std::size_t j = joins_; j-- > 0;) join_first_[j] = std::min(join_first_[j], join_first_[j + 1]);
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (!keep_[i]) continue;
      if (e[i].dst < work_ && (dst_ids_.empty() || dst_ids_.back() != e[i].dst)) {
        dst_ids_.push_back(e[i].dst);
        dst_first_.push_back(static_cast<uint32_t>(i));
      }
      if (e[i].dst >= work_) {
        count(e[i].kind);  // joins have no lane predecessor: every kept edge into one is a predecessor
        if (e[i].src < work_) src_ids_.push_back(e[i].src);
      }
    }
    dst_first_.push_back(static_cast<uint32_t>(std::min<std::size_t>(join_first_[0], e.size())));
    std::sort(src_ids_.begin(), src_ids_.end());
    src_ids_.erase(std::unique(src_ids_.begin(), src_ids_.end()), src_ids_.end());
    src_value_.assign(src_ids_.size(), kUnsetFinish);
    dst_gap_.assign(dst_ids_.size(), 0);
    dst_binding_.assign(dst_ids_.size(), Binding<T>{});
    join_done_.assign(joins_, 0);
    join_finish_.assign(joins_, 0);
    join_end_.assign(joins_, 0);
    join_rep_.assign(joins_, kNoNode);
  }

  std::size_t source_slot(NodeId u) const {
    return static_cast<std::size_t>(std::lower_bound(src_ids_.begin(), src_ids_.end(), u) - src_ids_.begin());
  }

  void count(EdgeKind k) {
    switch (k) {
      case EdgeKind::StreamOrder: ++counts_.stream_order; break;
      case EdgeKind::EventWait: ++counts_.event_wait; break;
      case EdgeKind::HostSync: ++counts_.host_sync; break;
      case EdgeKind::Barrier: ++counts_.barrier; break;
      case EdgeKind::Inferred: ++counts_.inferred; break;
    }
  }

  // A predecessor's earliest finish, measured end and the work node it stands for; false when not yet scheduled.
  bool pred_state(NodeId u, std::size_t position, T& finish, TimeNs& end, NodeId& work) {
    if (u >= work_) {
      const std::size_t j = u - work_;
      if (!emit_join(j, position)) return false;
      finish = join_finish_[j], end = join_end_[j], work = join_rep_[j];
      return true;
    }
    finish = src_value_[source_slot(u)];
    end = nodes_.end(u), work = u;
    return finish != kUnsetFinish;
  }

  // Schedules join j (and the joins it follows) before the node at `position`: its predecessors must all be
  // scheduled. Its finish is the latest of theirs (zero long, no gap); its time, the latest end; it stands for
  // the lowest work id among its predecessors that finish with it, as join_representatives.
  bool emit_join(std::size_t j0, std::size_t position) {
    if (join_done_[j0]) return true;
    stack_.assign(1, j0);
    const auto& e = extra_.edges;
    while (!stack_.empty()) {
      const std::size_t j = stack_.back();
      if (join_done_[j]) {
        stack_.pop_back();
        continue;
      }
      bool waits = false;
      for (uint32_t i = join_first_[j]; i < join_first_[j + 1] && !waits; ++i)
        if (keep_[i] && e[i].src >= work_ && !join_done_[e[i].src - work_]) {
          stack_.push_back(e[i].src - work_);
          waits = true;
        }
      if (waits) continue;
      T ready = 0;
      TimeNs at = kUnset;
      bool any = false;
      for (uint32_t i = join_first_[j]; i < join_first_[j + 1]; ++i) {
        if (!keep_[i]) continue;
        T f;
        TimeNs end;
        NodeId w;
        if (!pred_state(e[i].src, position, f, end, w)) return false;
        ready = std::max(ready, f), at = std::max(at, end), any = true;
      }
      NodeId rep = kNoNode;
      for (uint32_t i = join_first_[j]; i < join_first_[j + 1]; ++i) {
        if (!keep_[i]) continue;
        T f;
        TimeNs end;
        NodeId w;
        pred_state(e[i].src, position, f, end, w);
        if (f == ready && w != kNoNode && (rep == kNoNode || w < rep)) rep = w;
      }
      join_done_[j] = 1;
      join_finish_[j] = ready;
      join_end_[j] = any ? at : trace_start_;
      join_rep_[j] = rep;
      emitted_.push_back({position, static_cast<uint32_t>(j)});
      stack_.pop_back();
    }
    return true;
  }

  // `finishes` (null: not kept) receives each work node's earliest finish in visiting order.
  template <typename Duration>
  bool forward(SubmissionOrder& order, SpilledColumn<TimeNs>* finishes, Duration duration_of) {
    struct LaneLast {
      NodeId node = kNoNode;
      T finish = 0;
      TimeNs end = 0;
    };
    std::vector<LaneLast> lanes(lane_.count);
    SortedCursor sources(src_ids_, nodes_.dispatch_count), targets(dst_ids_, nodes_.dispatch_count);
    const auto& e = extra_.edges;
    last_ = kNoNode;
    T last_finish = 0;
    for (std::size_t p = 0; p < work_; ++p) {
      const NodeId v = order.next();
      const uint32_t l = lane_[v];
      LaneLast& lane = lanes[l];
      if (lane.node != kNoNode && !nodes_.earlier(lane.node, v)) return false;  // not the lane's order
      T ready = 0;
      TimeNs measured_ready = kUnset;
      bool has_preds = false;
      Binding<T> best;
      if (lane.node != kNoNode) {
        has_preds = true;
        ready = lane.finish, measured_ready = lane.end;
        best = Binding<T>{lane.node, lane.finish, EdgeKind::StreamOrder, true};
        ++counts_.stream_order;
      }
      const std::size_t k = targets.find(v);
      if (k != SortedCursor::npos) {
        for (uint32_t i = dst_first_[k]; i < dst_first_[k + 1]; ++i) {
          if (!keep_[i] || e[i].src == lane.node) continue;
          T f;
          TimeNs end;
          NodeId w;
          if (!pred_state(e[i].src, p, f, end, w)) return false;  // an edge backward in this order
          count(e[i].kind);
          has_preds = true;
          ready = std::max(ready, f), measured_ready = std::max(measured_ready, end);
          if (w == kNoNode) continue;  // a join of nothing cannot bind
          bool take = best.work == kNoNode;
          if (!take && f != best.finish) take = f > best.finish;
          else if (!take) {
            const bool same = lane_[w] == l, best_same = best.lane || lane_[best.work] == l;
            take = same != best_same ? same : w < best.work;
          }
          if (take) best = Binding<T>{w, f, e[i].kind, false};
        }
      }
      const TimeNs start = nodes_.start(v);
      TimeNs gap = start - trace_start_;
      if (has_preds) gap = std::max<TimeNs>(0, start - measured_ready);
      const T finish = ready + static_cast<T>(gap) + duration_of(v);
      if (k != SortedCursor::npos) dst_gap_[k] = gap, dst_binding_[k] = best;
      if (const std::size_t s = sources.find(v); s != SortedCursor::npos) src_value_[s] = finish;
      lane = LaneLast{v, finish, nodes_.end(v)};
      if (finishes != nullptr) finishes->push_back(static_cast<TimeNs>(finish));
      makespan_ = std::max(makespan_, finish);
      if (last_ == kNoNode || finish > last_finish || (finish == last_finish && v < last_)) last_ = v, last_finish = finish;
    }
    return true;
  }

  void backward(SubmissionOrder& order, const SpilledColumn<TimeNs>& finishes, StreamedSchedule& out) {
    // Per lane, what its last visited node pushed to its lane predecessor: a bound, or (deferred) its latest
    // finish less its duration and its start, the gap following from the predecessor's end.
    struct LanePush {
      enum : uint8_t { kNone, kBound, kDeferred } kind = kNone;
      TimeNs value = 0, start = 0;
    };
    std::vector<LanePush> lanes(lane_.count);
    std::fill(src_value_.begin(), src_value_.end(), makespan_);
    LargeVector<TimeNs> join_latest(joins_, makespan_);
    SortedCursor sources(src_ids_, nodes_.dispatch_count), targets(dst_ids_, nodes_.dispatch_count);
    sources.rewind(false);
    targets.rewind(false);
    const auto& e = extra_.edges;
    auto push = [&](NodeId u, TimeNs bound) {
      TimeNs& slot = u >= work_ ? join_latest[u - work_] : src_value_[source_slot(u)];
      slot = std::min(slot, bound);
    };

    const std::size_t dispatches = nodes_.dispatch_count;
    KernelSlackGroups groups(nodes_.trace);
    GroupMedians medians(groups.size());
    auto dispatch_slack = SpilledColumn<TimeNs>::appender(dispatches >= (std::size_t{1} << 17));
    if (node_rows_) {
      out.earliest_start.resize(work_);
      out.slack.resize(work_);
      out.on_path.assign(work_, 0);
    }
    // The path: the next node on it is `want` itself, or the next one visited in lane `want_lane`.
    NodeId want = last_;
    uint32_t want_lane = kJoinLane;
    EdgeKind link = EdgeKind::StreamOrder;
    std::size_t emitted = emitted_.size();

    const bool read = finishes.for_each_chunk_backward(
        [&](std::size_t, std::span<const TimeNs> chunk) {
          for (auto it = chunk.rbegin(); it != chunk.rend(); ++it) {
            const TimeNs finish = *it;
            const NodeId v = order.previous();
            const std::size_t p = order.position();
            const uint32_t l = lane_[v];
            LanePush& lane = lanes[l];
            TimeNs latest = makespan_;
            if (lane.kind == LanePush::kBound) latest = std::min(latest, lane.value);
            else if (lane.kind == LanePush::kDeferred)
              latest = std::min(latest, lane.value - std::max<TimeNs>(0, lane.start - nodes_.end(v)));
            if (const std::size_t s = sources.find(v); s != SortedCursor::npos) latest = std::min(latest, src_value_[s]);
            const TimeNs duration = nodes_.times.duration(v);
            if (const std::size_t k = targets.find(v); k != SortedCursor::npos) {
              const TimeNs bound = latest - duration - dst_gap_[k];
              lane = LanePush{LanePush::kBound, bound, 0};
              for (uint32_t i = dst_first_[k]; i < dst_first_[k + 1]; ++i)
                if (keep_[i]) push(e[i].src, bound);
              if (v == want || (want_lane == l && want == kNoNode)) follow(v, &dst_binding_[k], out, want, want_lane, link);
            } else {
              lane = LanePush{LanePush::kDeferred, latest - duration, nodes_.start(v)};
              if (v == want || (want_lane == l && want == kNoNode)) follow(v, nullptr, out, want, want_lane, link);
            }
            const bool on_path = !out.path.empty() && out.path.back() == v;
            if (on_path) out.first_finish = finish;
            const TimeNs slack = on_path ? 0 : std::max<TimeNs>(0, latest - finish);
            if (v < dispatches) {
              if (const uint32_t g = groups.of_dispatch(v); g != KernelSlackGroups::kNoGroup) {
                medians.add(g, slack);
                groups.count_on_path(g, on_path);
              }
              dispatch_slack.push_back(slack);
            }
            if (node_rows_) {
              out.earliest_start[v] = trace_start_ + finish - duration;
              out.slack[v] = slack;
              out.on_path[v] = on_path ? 1 : 0;
            }
            // The joins scheduled just before v: all their successors are visited; they push to their predecessors.
            for (; emitted > 0 && emitted_[emitted - 1].position == p; --emitted) {
              const std::size_t j = emitted_[emitted - 1].join;
              for (uint32_t i = join_first_[j]; i < join_first_[j + 1]; ++i)
                if (keep_[i]) push(e[i].src, std::min(makespan_, join_latest[j]));
            }
          }
        },
        true);
    if (!read) throw Error(ExitCode::Internal, "critical path: the temporary file of earliest finishes could not be read back");
    std::reverse(out.path.begin(), out.path.end());
    std::reverse(out.links.begin(), out.links.end());
    dispatch_slack.seal();
    // The medians: the dispatches' slacks again, from the temporary file (descending ids, as written).
    medians.select([&](auto add) {
      const bool again = dispatch_slack.for_each_chunk([&](std::size_t first, std::span<const TimeNs> chunk) {
        for (std::size_t k = 0; k < chunk.size(); ++k)
          if (const uint32_t g = groups.of_dispatch(static_cast<Index>(dispatches - 1 - (first + k)));
              g != KernelSlackGroups::kNoGroup)
            add(g, chunk[k]);
      });
      if (!again) throw Error(ExitCode::Internal, "critical path: the temporary file of slacks could not be read back");
    });
    out.kernel_slack = groups.summary(medians);
  }

  // v is the path's next node (walking back): record it, and what comes before it.
  void follow(NodeId v, const Binding<T>* binding, StreamedSchedule& out, NodeId& want, uint32_t& want_lane, EdgeKind& link) {
    if (!out.path.empty()) out.links.push_back(link);
    out.path.push_back(v);
    if (binding != nullptr && binding->work == kNoNode) {  // no predecessor: the path starts here
      want = kNoNode, want_lane = kJoinLane;
      return;
    }
    if (binding == nullptr || binding->lane) {
      want = kNoNode, want_lane = lane_[v], link = EdgeKind::StreamOrder;
      return;
    }
    want = binding->work, want_lane = kJoinLane, link = binding->kind;
  }

  struct Emitted {
    std::size_t position;
    uint32_t join;
  };

  const NodeTable& nodes_;
  EdgeList& extra_;
  const Lanes& lane_;
  const std::size_t work_, joins_;
  const TimeNs trace_start_;
  const bool node_rows_;
  LargeVector<uint8_t> keep_;             // per edge: not a repeated (target, source) pair
  LargeVector<uint32_t> join_first_;      // per join + 1: its edges' first index
  LargeVector<NodeId> dst_ids_;           // work nodes with recorded edges in, ascending
  LargeVector<uint32_t> dst_first_;       // per dst_ids_ entry + 1: its edges' first index
  LargeVector<TimeNs> dst_gap_;           // per dst_ids_ entry: its gap
  std::vector<Binding<T>> dst_binding_;      // per dst_ids_ entry: its binding predecessor
  LargeVector<NodeId> src_ids_;           // work nodes with recorded edges out, ascending
  LargeVector<T> src_value_;              // per src_ids_ entry: EF (forward), then the least bound pushed
  LargeVector<uint8_t> join_done_;
  LargeVector<T> join_finish_;
  LargeVector<TimeNs> join_end_;
  LargeVector<NodeId> join_rep_;
  std::vector<Emitted> emitted_;          // joins in the order scheduled, with the position they precede
  std::vector<std::size_t> stack_;
  EdgeCounts counts_;
  T makespan_ = 0;
  NodeId last_ = kNoNode;                 // the work node that finishes last (lowest id on ties)
};

}  // namespace

std::optional<StreamedSchedule> streamed_schedule(EdgeSet& edges, bool node_rows) {
  if (edges.nodes->size() == 0) return std::nullopt;
  return Streamer<TimeNs>(edges, node_rows).run();
}

std::optional<double> streamed_makespan(EdgeSet& edges, const std::function<double(NodeId)>& duration) {
  if (edges.nodes->size() == 0) return std::nullopt;
  return Streamer<double>(edges, false).makespan(duration);
}

}  // namespace rpl::analysis::dag
