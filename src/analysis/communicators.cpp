#include "analysis/communicators.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/collective_calls.hpp"
#include "support/errors.hpp"

namespace rpl::analysis::detail {
namespace {

std::string describe_call(const RankSummary& r, const CollectiveArrival& a) {
  return fmt::format("{} of {} x {} on rank {} ({})", r.names[a.operation], a.count,
                     a.data_type ? r.names[a.data_type] : std::string("?"), r.identity.rank, r.source_file);
}

// The communicators of every rank, by id; refuses members that disagree on the size or claim one rank twice.
std::vector<GlobalComm> gather_comms(const std::vector<RankSummary>& s, std::vector<std::vector<int>>& local_to_global) {
  std::vector<GlobalComm> comms;
  std::unordered_map<uint64_t, int> index;
  local_to_global.assign(s.size(), {});
  for (uint32_t r = 0; r < s.size(); ++r) {
    local_to_global[r].assign(s[r].communicators.size(), -1);
    for (std::size_t c = 1; c < s[r].communicators.size(); ++c) {
      const CommunicatorInfo& info = s[r].communicators[c];
      auto [it, inserted] = index.try_emplace(info.id, static_cast<int>(comms.size()));
      if (inserted) comms.push_back({info.id, info.size, 0, {}});
      GlobalComm& g = comms[static_cast<std::size_t>(it->second)];
      g.nodes = std::max(g.nodes, info.nodes);
      if (g.size != info.size)
        throw Error(ExitCode::InputInvalid,
                    fmt::format("communicator {}: {} says it has {} ranks but {} says it has {}: traces of different "
                                "runs?",
                                comm_name(info.id), s[g.members.front().second].source_file, g.size,
                                s[r].source_file, info.size));
      for (auto [comm_rank, other] : g.members)
        if (comm_rank == info.rank)
          throw Error(ExitCode::InputInvalid,
                      fmt::format("communicator {}: {} and {} both say they are its rank {}: traces of different runs, "
                                  "or one run given twice?",
                                  comm_name(info.id), s[other].source_file, s[r].source_file, info.rank));
      g.members.emplace_back(info.rank, r);
      local_to_global[r][c] = it->second;
    }
  }
  for (GlobalComm& g : comms) std::sort(g.members.begin(), g.members.end());
  std::sort(comms.begin(), comms.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::unordered_map<uint64_t, int> sorted;
  for (std::size_t i = 0; i < comms.size(); ++i) sorted[comms[i].id] = static_cast<int>(i);
  for (uint32_t r = 0; r < s.size(); ++r)
    for (std::size_t c = 1; c < s[r].communicators.size(); ++c) local_to_global[r][c] = sorted[s[r].communicators[c].id];
  return comms;
}

}  // namespace

std::string comm_name(uint64_t id) { return fmt::format("0x{:016x}", id); }

TimeNs median_ns(std::vector<TimeNs> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

Matching match(const std::vector<RankSummary>& s, MultiRankResult& out) {
  Matching m;
  std::vector<std::vector<int>> global;
  m.comms = gather_comms(s, global);
  // Group ids: by name for unlinked kernels, by (communicator, operation[, pair]) for linked ones.
  std::map<std::tuple<int, std::string, int32_t, int32_t>, uint32_t> ids;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> rank_items(s.size());  // (group, index)
  for (uint32_t r = 0; r < s.size(); ++r) {
    for (uint32_t i = 0; i < s[r].collectives.size(); ++i) {
      const CollectiveArrival& a = s[r].collectives[i];
      std::tuple<int, std::string, int32_t, int32_t> id;
      std::string name;
      if (a.comm != 0) {
        const int c = global[r][a.comm];
        std::string op = s[r].names[a.operation];
        int32_t lo = -1, hi = -1;
        if (is_point_to_point(op)) {
          op = "SendRecv";
          lo = std::min(s[r].communicators[a.comm].rank, a.peer);
          hi = std::max(s[r].communicators[a.comm].rank, a.peer);
        }
        id = {c, op, lo, hi};
        name = lo < 0 ? fmt::format("{} @ {}", op, comm_name(m.comms[static_cast<std::size_t>(c)].id))
                      : fmt::format("{} {}<->{} @ {}", op, lo, hi, comm_name(m.comms[static_cast<std::size_t>(c)].id));
        ++m.by_comm;
      } else {
        id = {-1, s[r].names[a.key], -1, -1};
        name = s[r].names[a.key];
        ++m.by_name;
      }
      auto [it, inserted] = ids.try_emplace(id, static_cast<uint32_t>(m.keys.size()));
      if (inserted) {
        m.keys.push_back(name);
        m.kernels.push_back(s[r].names[a.key]);
        m.comm.push_back(std::get<0>(id));
        m.operation.push_back(std::get<0>(id) >= 0 ? std::get<1>(id) : std::string());
      }
      rank_items[r].emplace_back(it->second, i);
    }
  }
  m.arrivals.assign(m.keys.size(), std::vector<std::vector<uint32_t>>(s.size()));
  for (uint32_t r = 0; r < s.size(); ++r)
    for (auto [g, i] : rank_items[r]) m.arrivals[g][r].push_back(i);
  // Per communicator: in the order of its calls (sequence numbers), not of the kernels' start times.
  for (std::size_t g = 0; g < m.keys.size(); ++g)
    if (m.comm[g] >= 0)
      for (uint32_t r = 0; r < s.size(); ++r)
        std::stable_sort(m.arrivals[g][r].begin(), m.arrivals[g][r].end(), [&](uint32_t a, uint32_t b) {
          return s[r].collectives[a].comm_sequence < s[r].collectives[b].comm_sequence;
        });
  m.instances.assign(m.keys.size(), 0);
  for (std::size_t k = 0; k < m.keys.size(); ++k) {
    std::size_t lo = SIZE_MAX, hi = 0;
    for (const auto& a : m.arrivals[k])
      if (!a.empty()) lo = std::min(lo, a.size()), hi = std::max(hi, a.size());
    m.instances[k] = lo == SIZE_MAX ? 0 : lo;
    CollectiveReport rep;
    rep.key = m.keys[k];
    if (auto info = parse_collective_kernel(m.kernels[k])) rep.info = *info;
    if (m.comm[k] >= 0) {
      rep.communicator = comm_name(m.comms[static_cast<std::size_t>(m.comm[k])].id);
      rep.info.operation = m.operation[k];
    }
    rep.instances = m.instances[k];
    for (const auto& a : m.arrivals[k]) rep.ranks += !a.empty();
    rep.counts_differ = lo != hi;
    if (rep.counts_differ)
      out.warnings.push_back(fmt::format(
          "{}: ranks ran it between {} and {} times; instances matched up to {} ({})", rep.key, lo, hi, lo,
          m.comm[k] >= 0 ? "a trace cut short?" : "ranks in different communicators, or a trace cut short?"));
    out.collectives.push_back(std::move(rep));
    if (m.comm[k] < 0) continue;
    // The members must agree on what each call was.
    for (std::size_t q = 0; q < m.instances[k]; ++q) {
      const RankSummary* ref = nullptr;
      const CollectiveArrival* a0 = nullptr;
      for (uint32_t r = 0; r < s.size(); ++r) {
        if (m.arrivals[k][r].empty()) continue;
        const CollectiveArrival& a = s[r].collectives[m.arrivals[k][r][q]];
        if (!a0) {
          ref = &s[r], a0 = &a;
          continue;
        }
        const bool same_op = m.operation[k] == "SendRecv" || s[r].names[a.operation] == ref->names[a0->operation];
        if (!same_op || a.count != a0->count || s[r].names[a.data_type] != ref->names[a0->data_type])
          throw Error(ExitCode::InputInvalid,
                      fmt::format("communicator {}: its call #{} is {} but {}: traces of different runs?",
                                  comm_name(m.comms[static_cast<std::size_t>(m.comm[k])].id), q,
                                  describe_call(*ref, *a0), describe_call(s[r], a)));
      }
    }
  }
  for (const GlobalComm& c : m.comms)
    if (static_cast<int32_t>(c.members.size()) < c.size)
      out.warnings.push_back(fmt::format("communicator {} has {} ranks but {} of them were traced: its waits and "
                                         "stragglers are those of the traced ones",
                                         comm_name(c.id), c.size, c.members.size()));
  out.matching = m.by_comm == 0 ? "name and order" : m.by_name == 0 ? "communicator" : "mixed";
  if (m.by_comm > 0 && m.by_name > 0)
    out.warnings.push_back(fmt::format("{} collective kernels were linked to no library call and are matched by name "
                                       "and order; {} by communicator",
                                       m.by_name, m.by_comm));
  return m;
}

}  // namespace rpl::analysis::detail
