#include "analysis/multi_rank.hpp"

#include "analysis/communicators.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <queue>
#include <unordered_map>

#include "support/errors.hpp"
#include "support/user_regex.hpp"

namespace rpl::analysis {
namespace {

using detail::Instance;
using detail::Matching;

TimeNs median(std::vector<TimeNs> v) { return detail::median_ns(std::move(v)); }

// Ranks where the launcher recorded them; the others numbered after the highest recorded one, in
// (host, pid) order. Sorted by rank.
void number_ranks(std::vector<RankSummary>& s, MultiRankResult& out, std::vector<bool>& recorded) {
  int64_t next = 0;
  for (const auto& r : s) next = std::max(next, r.identity.rank + 1);
  std::vector<std::size_t> unknown;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!s[i].identity.known()) unknown.push_back(i);
  std::sort(unknown.begin(), unknown.end(),
            [&](auto a, auto b) { return std::tie(s[a].host, s[a].pid) < std::tie(s[b].host, s[b].pid); });
  if (!unknown.empty())
    out.warnings.push_back(fmt::format("{} process(es) recorded no rank (no launcher variable): numbered by host and "
                                       "pid from rank {}",
                                       unknown.size(), next));
  recorded.assign(s.size(), true);
  for (std::size_t i : unknown) {
    s[i].identity.rank = next++;
    recorded[i] = false;
  }
  std::vector<std::size_t> order(s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return s[a].identity.rank < s[b].identity.rank; });
  std::vector<RankSummary> sorted;
  std::vector<bool> rec;
  for (std::size_t i : order) {
    sorted.push_back(std::move(s[i]));
    rec.push_back(recorded[i]);
  }
  s = std::move(sorted);
  recorded = std::move(rec);
  for (std::size_t i = 1; i < s.size(); ++i)
    if (s[i].identity.rank == s[i - 1].identity.rank)
      out.warnings.push_back(fmt::format("two processes say they are rank {} ({} pid {} and {} pid {}): two runs in "
                                         "one directory?",
                                         s[i].identity.rank, s[i - 1].host, s[i - 1].pid, s[i].host, s[i].pid));
}

void align_clocks(std::vector<RankSummary>& s, const Matching& m, MultiRankResult& out, bool apply) {
  if (s.empty()) return;
  const std::size_t ref = 0;  // the lowest rank
  std::map<std::string, std::vector<TimeNs>> samples;  // host -> end(ref) - end(r)
  for (std::size_t r = 0; r < s.size(); ++r) {
    if (r == ref) continue;
    auto& v = samples[s[r].host];
    for (std::size_t k = 0; k < m.keys.size(); ++k) {
      const auto& a_ref = m.arrivals[k][ref];
      const auto& a_r = m.arrivals[k][r];
      for (std::size_t i = 0; i < m.instances[k] && i < a_ref.size() && i < a_r.size(); ++i)
        v.push_back(s[ref].collectives[a_ref[i]].end - s[r].collectives[a_r[i]].end);
    }
  }
  samples.try_emplace(s[ref].host);
  std::map<std::string, TimeNs> offsets;
  for (auto& [host, v] : samples) {
    ClockOffset o;
    o.host = host;
    o.reference_rank = s[ref].identity.rank;
    o.samples = v.size();
    if (!v.empty()) {
      const TimeNs med = median(v);
      std::vector<TimeNs> dev;
      for (TimeNs x : v) dev.push_back(std::llabs(x - med));
      o.spread_ns = static_cast<TimeNs>(1.4826 * static_cast<double>(median(dev)));
      if (host != s[ref].host) {
        o.offset_ns = med;
        o.applied = apply;
      }
    }
    if (o.applied) offsets[host] = o.offset_ns;
    out.clock_offsets.push_back(o);
  }
  for (auto& r : s) {
    auto it = offsets.find(r.host);
    if (it == offsets.end()) continue;
    r.first_start += it->second;
    r.last_end += it->second;
    for (auto& c : r.collectives) c.start += it->second, c.end += it->second;
  }
}

std::vector<Instance> build_instances(const std::vector<RankSummary>& s, const Matching& m, MultiRankResult& out,
                                      TimeNs tolerance, std::vector<std::vector<uint32_t>>& instance_of) {
  std::vector<Instance> inst;
  instance_of.assign(s.size(), {});
  for (std::size_t r = 0; r < s.size(); ++r) instance_of[r].assign(s[r].collectives.size(), UINT32_MAX);
  // Imposed wait per (rank, key) and the worst instance, for the straggler evidence.
  for (uint32_t k = 0; k < m.keys.size(); ++k) {
    CollectiveReport& rep = out.collectives[k];
    for (uint32_t q = 0; q < m.instances[k]; ++q) {
      Instance in;
      in.key = k;
      in.sequence = q;
      for (uint32_t r = 0; r < s.size(); ++r)
        if (!m.arrivals[k][r].empty()) in.members.emplace_back(r, m.arrivals[k][r][q]);
      TimeNs second = std::numeric_limits<TimeNs>::min();
      uint32_t last_rank = UINT32_MAX;
      in.last_start = std::numeric_limits<TimeNs>::min();
      in.first_end = std::numeric_limits<TimeNs>::max();
      in.last_end = std::numeric_limits<TimeNs>::min();
      for (auto [r, i] : in.members) {
        const auto& c = s[r].collectives[i];
        if (c.start > in.last_start) {
          second = in.last_start;
          in.last_start = c.start;
          last_rank = r;
        } else {
          second = std::max(second, c.start);
        }
        in.first_end = std::min(in.first_end, c.end);
        in.last_end = std::max(in.last_end, c.end);
      }
      in.real_ns = std::max<TimeNs>(0, in.last_end - in.last_start);
      TimeNs total = 0;
      for (auto [r, i] : in.members) {
        const TimeNs w = in.last_start - s[r].collectives[i].start;
        out.ranks[r].collective_wait_ns += w;
        total += w;
        rep.max_wait_ns = std::max(rep.max_wait_ns, w);
      }
      rep.total_wait_ns += total;
      rep.real_ns += in.real_ns;
      if (in.members.size() > 1 && in.last_start - second > tolerance) {
        in.late_rank = last_rank;
        in.imposed_ns = total / static_cast<TimeNs>(in.members.size() - 1);
        ++out.ranks[last_rank].last_arrivals;
        out.ranks[last_rank].imposed_wait_ns += in.imposed_ns;
      }
      for (auto [r, i] : in.members) instance_of[r][i] = static_cast<uint32_t>(inst.size());
      inst.push_back(std::move(in));
    }
  }
  return inst;
}

// The join model: per rank, its matched collectives in its own order; a rank leaves instance j when j
// completes (its last participant's arrival plus the real duration) and reaches its next instance after
// its own work between them. Kahn's order over "previous instance of a participant -> instance".
struct JoinModel {
  const std::vector<RankSummary>& s;
  const std::vector<Instance>& inst;
  const std::vector<std::vector<uint32_t>>& instance_of;
  TimeNs origin;
  // Per rank: its matched collective indices in order, and the work before each (and the tail).
  std::vector<std::vector<uint32_t>> chain;
  std::vector<std::vector<TimeNs>> gap;                      // [rank][position], position = chain.size(): tail
  std::size_t scenarios;
  std::vector<std::vector<TimeNs>> saved;                    // [rank][position * scenarios + scenario]
  std::vector<std::vector<uint32_t>> top;                    // [rank][position] name id of the top kernel
  std::vector<std::vector<TimeNs>> top_ns, busy;              // [rank][position] its time, all kernels' time
  std::vector<uint32_t> order;                               // instances in dependency order
  std::vector<std::vector<uint32_t>> position_of;            // [rank][collective index] -> position in chain

  JoinModel(const std::vector<RankSummary>& s_, const std::vector<Instance>& i_,
            const std::vector<std::vector<uint32_t>>& io, TimeNs origin_, std::size_t scenarios_)
      : s(s_), inst(i_), instance_of(io), origin(origin_), scenarios(scenarios_) {
    chain.resize(s.size()), gap.resize(s.size()), saved.resize(s.size()), top.resize(s.size());
    top_ns.resize(s.size()), busy.resize(s.size());
    for (std::size_t r = 0; r < s.size(); ++r) {
      TimeNs prev_end = origin;
      std::vector<TimeNs> acc(scenarios, 0);
      TimeNs busy_acc = 0;
      for (uint32_t i = 0; i <= s[r].collectives.size(); ++i) {
        const WorkSegment& seg = s[r].segments[i];
        for (std::size_t w = 0; w < scenarios && w < seg.saved_ns.size(); ++w) acc[w] += seg.saved_ns[w];
        busy_acc += seg.busy_ns;
        const bool tail = i == s[r].collectives.size();
        if (!tail && instance_of[r][i] == UINT32_MAX) continue;  // unmatched: its work joins the next
        const TimeNs arrive = tail ? s[r].last_end : s[r].collectives[i].start;
        if (!tail) chain[r].push_back(i);
        gap[r].push_back(std::max<TimeNs>(0, arrive - prev_end));
        saved[r].insert(saved[r].end(), acc.begin(), acc.end());
        top[r].push_back(seg.top_kernel);
        top_ns[r].push_back(seg.top_kernel_ns);
        busy[r].push_back(busy_acc);
        busy_acc = 0;
        std::fill(acc.begin(), acc.end(), 0);
        if (!tail) prev_end = s[r].collectives[i].end;
      }
    }
    position_of.resize(s.size());
    for (std::size_t r = 0; r < s.size(); ++r) {
      position_of[r].assign(s[r].collectives.size(), UINT32_MAX);
      for (std::size_t p = 0; p < chain[r].size(); ++p) position_of[r][chain[r][p]] = static_cast<uint32_t>(p);
    }
    // Dependency order.
    std::vector<uint32_t> indegree(inst.size(), 0);
    std::vector<std::vector<uint32_t>> next(inst.size());
    for (std::size_t r = 0; r < s.size(); ++r)
      for (std::size_t p = 1; p < chain[r].size(); ++p) {
        uint32_t a = instance_of[r][chain[r][p - 1]], b = instance_of[r][chain[r][p]];
        next[a].push_back(b);
        ++indegree[b];
      }
    std::vector<uint32_t> by_start(inst.size());
    std::iota(by_start.begin(), by_start.end(), 0);
    std::sort(by_start.begin(), by_start.end(), [&](auto a, auto b) { return inst[a].last_start < inst[b].last_start; });
    auto cmp = [&](uint32_t a, uint32_t b) { return inst[a].last_start > inst[b].last_start; };
    std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(cmp)> ready(cmp);
    for (uint32_t j : by_start)
      if (indegree[j] == 0) ready.push(j);
    std::vector<uint8_t> done(inst.size(), 0);
    while (order.size() < inst.size()) {
      if (ready.empty()) {  // a cycle (sequences matched inconsistently): break it at the earliest left
        for (uint32_t j : by_start)
          if (!done[j]) {
            ready.push(j);
            indegree[j] = 0;
            break;
          }
      }
      uint32_t j = ready.top();
      ready.pop();
      if (done[j]) continue;
      done[j] = 1;
      order.push_back(j);
      for (uint32_t b : next[j])
        if (indegree[b] > 0 && --indegree[b] == 0) ready.push(b);
    }
  }

  struct Schedule {
    TimeNs makespan = 0;
    std::vector<TimeNs> complete;            // per instance
    std::vector<uint32_t> critical_rank;     // per instance: the participant arriving last
    uint32_t final_rank = 0;
  };

  // scenario < 0: measured durations. real_factor: per instance factor on its real duration.
  Schedule run(int scenario, const std::vector<double>& key_factor) const {
    Schedule out;
    out.complete.assign(inst.size(), 0);
    out.critical_rank.assign(inst.size(), 0);
    auto work = [&](std::size_t r, std::size_t p) {
      TimeNs g = gap[r][p];
      if (scenario >= 0) g = std::max<TimeNs>(0, g - saved[r][p * scenarios + static_cast<std::size_t>(scenario)]);
      return g;
    };
    auto leave = [&](std::size_t r, std::size_t p) {  // when rank r left the instance before position p
      return p == 0 ? TimeNs{0} : out.complete[instance_of[r][chain[r][p - 1]]];
    };
    for (uint32_t j : order) {
      TimeNs arrive = 0;
      uint32_t who = 0;
      bool first = true;
      for (auto [r, i] : inst[j].members) {
        const std::size_t p = position_of[r][i];
        const TimeNs a = leave(r, p) + work(r, p);
        if (first || a > arrive) arrive = a, who = r, first = false;
      }
      out.critical_rank[j] = who;
      const double f = key_factor.empty() ? 1.0 : key_factor[inst[j].key];
      out.complete[j] = arrive + static_cast<TimeNs>(static_cast<double>(inst[j].real_ns) * f);
    }
    bool first = true;
    for (std::size_t r = 0; r < s.size(); ++r) {
      const std::size_t p = chain[r].size();
      const TimeNs end = leave(r, p) + work(r, p);
      if (first || end > out.makespan) out.makespan = end, out.final_rank = static_cast<uint32_t>(r), first = false;
    }
    return out;
  }
};

void critical_path(const std::vector<RankSummary>& s, const std::vector<Instance>& inst, const JoinModel& model,
                   const Matching& m, MultiRankResult& out) {
  JoinModel::Schedule sched = model.run(-1, {});
  CrossRankPath& path = out.critical_path;
  path.modeled_ns = sched.makespan;
  path.joins = inst.size();
  // Walk back from the rank that finishes last: its tail, then at each instance the last arrival.
  std::vector<PathStep> steps;
  std::map<std::pair<int64_t, std::string>, TimeNs> hot;
  std::size_t r = sched.final_rank;
  std::size_t p = model.chain[r].size();
  for (;;) {
    PathStep step;
    step.rank = s[r].identity.rank;
    step.work_ns = model.gap[r][p];
    step.top_kernel = s[r].names[model.top[r][p]];
    if (p < model.chain[r].size()) {
      const Instance& in = inst[model.instance_of[r][model.chain[r][p]]];
      step.before = m.keys[in.key];
      step.sequence = in.sequence;
    }
    out.ranks[r].critical_path_ns += step.work_ns;
    // The step's time: its top kernel, its other kernels, and the rest (no kernel ran: host or idle).
    const TimeNs kernels = std::min(model.busy[r][p], step.work_ns);
    const TimeNs top = std::min(model.top_ns[r][p], kernels);
    hot[{step.rank, step.top_kernel}] += top;
    hot[{step.rank, "(other kernels)"}] += kernels - top;
    hot[{step.rank, ""}] += step.work_ns - kernels;
    steps.push_back(std::move(step));
    if (p == 0) break;
    const uint32_t j = model.instance_of[r][model.chain[r][p - 1]];
    hot[{s[sched.critical_rank[j]].identity.rank, "(collective) " + m.keys[inst[j].key]}] += inst[j].real_ns;
    r = sched.critical_rank[j];
    std::size_t i = 0;
    for (auto [rr, ii] : inst[j].members)
      if (rr == r) i = ii;
    p = model.position_of[r][i];
  }
  std::reverse(steps.begin(), steps.end());
  path.steps_total = steps.size();
  if (steps.size() > kMaxPathSteps) {
    std::vector<std::size_t> idx(steps.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::nth_element(idx.begin(), idx.begin() + kMaxPathSteps, idx.end(),
                     [&](auto a, auto b) { return steps[a].work_ns > steps[b].work_ns; });
    idx.resize(kMaxPathSteps);
    std::sort(idx.begin(), idx.end());
    std::vector<PathStep> kept;
    for (auto i : idx) kept.push_back(steps[i]);
    steps = std::move(kept);
  }
  path.steps = std::move(steps);
  for (const auto& [k, ns] : hot)
    if (ns > 0) path.hotspots.push_back({k.first, k.second, ns});
  std::sort(path.hotspots.begin(), path.hotspots.end(), [](const auto& a, const auto& b) {
    return a.ns != b.ns ? a.ns > b.ns : std::tie(a.rank, a.kernel) < std::tie(b.rank, b.kernel);
  });
  if (path.hotspots.size() > 10) path.hotspots.resize(10);
}

// The wait rank r's late arrival at instance `in` made the others sit through (their mean), or 0 when r
// was not last by more than the tolerance.
TimeNs imposed_at(const std::vector<RankSummary>& s, const Instance& in, std::size_t r, TimeNs tolerance) {
  if (in.members.size() < 2) return 0;
  TimeNs waited = 0, second = std::numeric_limits<TimeNs>::min();
  bool last = false;
  for (auto [o, i] : in.members) {
    waited += in.last_start - s[o].collectives[i].start;
    if (o == r) last = s[o].collectives[i].start == in.last_start;
    else second = std::max(second, s[o].collectives[i].start);
  }
  if (!last || in.last_start - second <= tolerance) return 0;
  return waited / static_cast<TimeNs>(in.members.size() - 1);
}

// The work before rank r's arrival at its collective i. Matched per communicator: since its previous call on
// the same communicator (what it did in between, its other communicators' collectives included, is what made
// it late here: a tensor-parallel group's GEMMs before its own all-reduce delay its data-parallel one). Matched
// by name: since its previous matched collective (the join model's gap), as before.
struct Lead {
  TimeNs gap = 0, busy = 0;
  std::vector<std::pair<uint32_t, TimeNs>> top;  // (name id, ns) of each segment's top kernel
};

class LeadFinder {
 public:
  LeadFinder(const std::vector<RankSummary>& s, const JoinModel& model) : s_(s), model_(model), previous_(s.size()) {
    for (std::size_t r = 0; r < s.size(); ++r) {
      previous_[r].assign(s[r].collectives.size(), kNone);
      std::unordered_map<uint64_t, uint32_t> last;  // communicator id -> its last collective on this rank
      for (uint32_t i = 0; i < s[r].collectives.size(); ++i) {
        const uint32_t c = s[r].collectives[i].comm;
        if (c == 0) continue;
        auto [it, first] = last.try_emplace(s[r].communicators[c].id, i);
        previous_[r][i] = first ? kFirst : it->second;
        it->second = i;
      }
    }
  }
  Lead operator()(std::size_t r, uint32_t i) const {
    Lead l;
    const RankSummary& rs = s_[r];
    const uint32_t prev = previous_[r][i];
    if (prev == kNone) {
      const uint32_t p = model_.position_of[r][i];
      l.gap = model_.gap[r][p];
      l.busy = rs.segments[i].busy_ns;
      l.top.emplace_back(model_.top[r][p], rs.segments[i].top_kernel_ns);
      return l;
    }
    const uint32_t from = prev == kFirst ? 0 : prev + 1;
    l.gap = std::max<TimeNs>(0, rs.collectives[i].start - (prev == kFirst ? rs.first_start : rs.collectives[prev].end));
    for (uint32_t k = from; k <= i; ++k) {
      l.busy += rs.segments[k].busy_ns;
      l.top.emplace_back(rs.segments[k].top_kernel, rs.segments[k].top_kernel_ns);
    }
    return l;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX, kFirst = UINT32_MAX - 1;
  const std::vector<RankSummary>& s_;
  const JoinModel& model_;
  std::vector<std::vector<uint32_t>> previous_;  // [rank][collective]: kNone (matched by name), kFirst, or index
};

// A straggler makes the others wait far more than any other rank does (twice the median of the others),
// for a noticeable share of the job (2% of its span), and by a noticeable amount each time (10% of the
// mean interval between collectives): random last arrivals of a balanced job are none of these.
void find_stragglers(const std::vector<RankSummary>& s, const std::vector<Instance>& inst, const Matching& m,
                     const JoinModel& model, TimeNs tolerance, MultiRankResult& out) {
  if (s.size() < 2 || inst.empty()) return;
  const LeadFinder lead(s, model);
  TimeNs total = 0;
  for (const auto& r : out.ranks) total += r.imposed_wait_ns;
  const TimeNs span = std::max<TimeNs>(1, out.critical_path.measured_ns);
  const double interval = static_cast<double>(span) / static_cast<double>(inst.size());
  for (std::size_t r = 0; r < s.size(); ++r) {
    const RankReport& rr = out.ranks[r];
    std::vector<TimeNs> others;
    for (std::size_t o = 0; o < s.size(); ++o)
      if (o != r) others.push_back(out.ranks[o].imposed_wait_ns);
    if (rr.imposed_wait_ns <= 0 || rr.last_arrivals == 0 || rr.imposed_wait_ns < 2 * median(others) ||
        rr.imposed_wait_ns * 50 < span ||
        static_cast<double>(rr.imposed_wait_ns) / static_cast<double>(rr.last_arrivals) < 0.1 * interval)
      continue;
    StragglerReport st;
    st.rank = rr.rank;
    st.imposed_wait_ns = rr.imposed_wait_ns;
    st.share = total > 0 ? static_cast<double>(rr.imposed_wait_ns) / static_cast<double>(total) : 0;
    st.last_arrivals = rr.last_arrivals;
    st.instances = inst.size();
    // Where: the collective at which it made the others wait most, and that collective's worst instance.
    std::vector<TimeNs> per_key(m.keys.size(), 0);
    for (std::size_t p = 0; p < model.chain[r].size(); ++p) {
      const Instance& in = inst[model.instance_of[r][model.chain[r][p]]];
      per_key[in.key] += imposed_at(s, in, r, tolerance);
    }
    const auto key = static_cast<uint32_t>(std::max_element(per_key.begin(), per_key.end()) - per_key.begin());
    st.collective = m.keys[key];
    if (m.comm[key] >= 0) st.communicator = detail::comm_name(m.comms[static_cast<std::size_t>(m.comm[key])].id);
    // How: its own time before those instances, against the other participants' before the same instances,
    // and how much of each was GPU kernel time (`lead`).
    TimeNs own_gap = 0, own_busy = 0;
    std::vector<TimeNs> peer_gap(s.size(), 0), peer_busy(s.size(), 0);
    std::vector<std::size_t> peer_n(s.size(), 0);
    std::unordered_map<uint32_t, TimeNs> top;
    std::size_t n = 0;
    for (std::size_t p = 0; p < model.chain[r].size(); ++p) {
      const Instance& in = inst[model.instance_of[r][model.chain[r][p]]];
      const TimeNs imposed = in.key == key ? imposed_at(s, in, r, tolerance) : 0;
      if (imposed <= 0) continue;
      if (imposed > st.worst_wait_ns) st.worst_wait_ns = imposed, st.worst_sequence = in.sequence;
      const Lead own = lead(r, model.chain[r][p]);
      own_gap += own.gap;
      own_busy += own.busy;
      for (auto [name, ns] : own.top) top[name] += ns;
      for (auto [o, i] : in.members) {
        if (o == r || model.position_of[o][i] == UINT32_MAX) continue;
        const Lead peer = lead(o, i);
        peer_gap[o] += peer.gap;
        peer_busy[o] += peer.busy;
        ++peer_n[o];
      }
      ++n;
    }
    if (n == 0) continue;
    st.own_gap_ns = own_gap / static_cast<TimeNs>(n);
    st.own_busy_ns = own_busy / static_cast<TimeNs>(n);
    std::vector<TimeNs> gaps, busies;  // the participants' means (other ranks never joined r there)
    for (std::size_t o = 0; o < s.size(); ++o)
      if (o != r && peer_n[o] > 0)
        gaps.push_back(peer_gap[o] / static_cast<TimeNs>(peer_n[o])),
            busies.push_back(peer_busy[o] / static_cast<TimeNs>(peer_n[o]));
    st.peers_gap_ns = median(gaps);
    const TimeNs peers_busy = median(busies);
    uint32_t best = 0;
    TimeNs best_ns = 0;
    for (auto [name, ns] : top)
      if (ns > best_ns || (ns == best_ns && name < best)) best = name, best_ns = ns;
    st.top_kernel = s[r].names[best];
    // The extra time it took is host-side when its extra GPU kernel time explains less than half of it.
    const TimeNs extra = st.own_gap_ns - st.peers_gap_ns, extra_busy = st.own_busy_ns - peers_busy;
    const bool host_side = extra_busy * 2 < extra;
    st.evidence = fmt::format(
        "rank {} arrived last at {} of {} collective instances (by more than {:.1f} us), making the other ranks wait "
        "{:.3f} ms in all ({:.0f}% of all such waits), most at {} (worst: instance #{}, {:.3f} ms); before those "
        "arrivals it took {:.3f} ms on average since its previous collective, the other ranks {:.3f} ms; {}",
        st.rank, st.last_arrivals, st.instances, tolerance / 1e3, st.imposed_wait_ns / 1e6, 100 * st.share,
        st.collective, st.worst_sequence, st.worst_wait_ns / 1e6, st.own_gap_ns / 1e6, st.peers_gap_ns / 1e6,
        host_side ? fmt::format("its GPU ran kernels for {:.3f} ms of that (the others {:.3f} ms): the extra time is on "
                                "the host (CPU work, data loading, a sleep, launch latency), not on the GPU",
                                st.own_busy_ns / 1e6, peers_busy / 1e6)
                  : fmt::format("its GPU ran kernels for {:.3f} ms of that (the others {:.3f} ms), most in {}: the "
                                "extra time is GPU work",
                                st.own_busy_ns / 1e6, peers_busy / 1e6,
                                st.top_kernel.empty() ? std::string("(none)") : st.top_kernel));
    out.stragglers.push_back(std::move(st));
  }
  std::sort(out.stragglers.begin(), out.stragglers.end(),
            [](const auto& a, const auto& b) { return a.imposed_wait_ns > b.imposed_wait_ns; });
}

}  // namespace

MultiRankResult analyze_ranks(std::vector<RankSummary>& s, const MultiRankOptions& options) {
  MultiRankResult out;
  std::vector<bool> recorded;
  number_ranks(s, out, recorded);
  Matching m = detail::match(s, out);
  align_clocks(s, m, out, options.align_clocks);

  for (std::size_t r = 0; r < s.size(); ++r) {
    RankReport rep;
    rep.rank = s[r].identity.rank;
    rep.rank_recorded = recorded[r];
    rep.local_rank = s[r].identity.local_rank;
    rep.host = s[r].host;
    rep.gpu = s[r].gpu;
    rep.source_file = s[r].source_file;
    rep.pid = s[r].pid;
    rep.start_ns = s[r].first_start;
    rep.end_ns = s[r].last_end;
    rep.compute_ns = s[r].compute_ns;
    rep.communication_ns = s[r].communication_ns;
    rep.overlap_ns = s[r].overlap_ns;
    rep.kernel_time_ns = s[r].kernel_time_ns;
    rep.dispatches = s[r].dispatches;
    rep.collective_kernels = s[r].collective_kernels;
    rep.peer_copies = s[r].peer_copies;
    rep.peer_copy_bytes = s[r].peer_copy_bytes;
    rep.nccl_calls = s[r].nccl_calls;
    rep.compute_bins = s[r].compute_bins;
    rep.communication_bins = s[r].communication_bins;
    out.ranks.push_back(std::move(rep));
  }
  std::vector<RankSummaries<CopyKindSummary>> copies;
  std::vector<RankSummaries<RangeSummary>> ranges;
  for (const RankSummary& r : s) {
    copies.push_back({r.identity.rank, &r.copies});
    ranges.push_back({r.identity.rank, &r.ranges});
  }
  out.copy_summary = copies_across_ranks(copies);
  out.range_summary = ranges_across_ranks(ranges);
  if (s.empty()) return out;
  TimeNs origin = s[0].first_start, end = s[0].last_end;
  for (const auto& r : s) origin = std::min(origin, r.first_start), end = std::max(end, r.last_end);
  out.critical_path.measured_ns = end - origin;

  std::vector<std::vector<uint32_t>> instance_of;
  std::vector<Instance> inst = build_instances(s, m, out, options.arrival_tolerance_ns, instance_of);
  const std::size_t scenarios = s[0].what_if.size();
  for (const auto& r : s)
    if (r.what_if != s[0].what_if)
      throw Error(ExitCode::InputInvalid,
                  fmt::format("{}: its summary was made with other --what-if scenarios than {}'s", r.source_file,
                              s[0].source_file));
  JoinModel model(s, inst, instance_of, origin, scenarios);
  critical_path(s, inst, model, m, out);
  find_stragglers(s, inst, m, model, options.arrival_tolerance_ns, out);
  detail::report_communicators(s, m, inst, options, out);
  std::sort(out.collectives.begin(), out.collectives.end(), [](const auto& a, const auto& b) {
    return a.total_wait_ns != b.total_wait_ns ? a.total_wait_ns > b.total_wait_ns : a.key < b.key;
  });

  for (std::size_t w = 0; w < scenarios; ++w) {
    // The scenario also scales collectives whose kernel name it matches.
    const std::string& spec = s[0].what_if[w];
    const auto eq = spec.rfind('=');
    UserRegex re(spec.substr(0, eq), "--what-if");
    const double factor = std::stod(spec.substr(eq + 1));
    std::vector<double> key_factor(m.keys.size(), 1.0);
    for (std::size_t k = 0; k < m.keys.size(); ++k)
      if (re.search(m.keys[k]) || re.search(m.kernels[k])) key_factor[k] = factor;
    MultiRankWhatIf wi;
    wi.spec = spec;
    wi.baseline_ns = out.critical_path.modeled_ns;
    wi.predicted_ns = model.run(static_cast<int>(w), key_factor).makespan;
    wi.speedup = wi.predicted_ns > 0 ? static_cast<double>(wi.baseline_ns) / static_cast<double>(wi.predicted_ns) : 1;
    out.what_if.push_back(std::move(wi));
  }
  return out;
}

}  // namespace rpl::analysis
