// The per-communicator report of the analysis across ranks (analysis/communicators.hpp).
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/collective_calls.hpp"
#include "analysis/communicators.hpp"

namespace rpl::analysis::detail {
namespace {

// The members' slowest link towards the others: NVLink where every pair of members is joined by NVLink (the
// smallest per-GPU NVLink total: a ring's bus bandwidth is bounded by what each GPU can send), PCIe where the
// members' GPUs have recorded PCIe links, "network" when they are on different hosts (by their traces, or by the
// library's count of the communicator's nodes; no peak recorded).
std::pair<std::string, double> link_peak(const std::vector<RankSummary>& s, const GlobalComm& c) {
  if (c.members.size() < 2) return {"", 0};
  if (c.nodes > 1) return {"network", 0};
  for (auto [cr, r] : c.members)
    if (s[r].host != s[c.members.front().second].host) return {"network", 0};
  auto own = [&](uint32_t r, std::string_view kind) {
    for (const LinkInfo& l : s[r].links)
      if (l.peer_uuid.empty() && l.kind == kind) return l.gb_per_s;
    return 0.0;
  };
  bool nvlink = true;
  for (auto [ca, a] : c.members)
    for (auto [cb, b] : c.members) {
      if (a == b) continue;
      bool found = false;
      for (const LinkInfo& l : s[a].links) found = found || (l.kind == "nvlink" && l.peer_uuid == s[b].gpu);
      nvlink = nvlink && found;
    }
  const std::string kind = nvlink ? "nvlink" : "pcie";
  double peak = 0;
  for (auto [cr, r] : c.members) {
    const double p = own(r, kind);
    if (p <= 0) return {"", 0};
    peak = peak == 0 ? p : std::min(peak, p);
  }
  return {kind, peak};
}

double gbs(uint64_t bytes, TimeNs ns) { return ns > 0 ? static_cast<double>(bytes) / static_cast<double>(ns) : 0; }

std::string most_common(const std::map<std::string, std::size_t>& counts) {
  std::string best;
  std::size_t n = 0;
  for (const auto& [k, v] : counts)
    if (v > n) best = k, n = v;
  return best;
}

std::string rank_list(const std::vector<int64_t>& ranks) {
  std::vector<std::string> v;
  for (int64_t r : ranks) v.push_back(std::to_string(r));
  return fmt::format("{}", fmt::join(v, ", "));
}

}  // namespace

void report_communicators(const std::vector<RankSummary>& s, const Matching& m, const std::vector<Instance>& inst,
                          const MultiRankOptions& o, MultiRankResult& out) {
  const TimeNs span = std::max<TimeNs>(1, out.critical_path.measured_ns);
  std::vector<std::vector<uint32_t>> of_group(m.keys.size());
  for (uint32_t j = 0; j < inst.size(); ++j) of_group[inst[j].key].push_back(j);
  std::map<int64_t, std::vector<std::size_t>> late_in;  // job rank -> communicators it straggles in
  for (std::size_t ci = 0; ci < m.comms.size(); ++ci) {
    const GlobalComm& c = m.comms[ci];
    CommunicatorReport rep;
    rep.id = comm_name(c.id);
    rep.size = c.size;
    for (auto [cr, r] : c.members) rep.ranks.push_back(s[r].identity.rank);
    std::tie(rep.link_kind, rep.link_peak_gb_per_s) = link_peak(s, c);
    std::map<std::string, std::size_t> op_index;
    struct Acc {
      uint64_t alg_bytes = 0;
      std::vector<double> busbw;
      std::map<std::string, std::size_t> algorithms, protocols;
    };
    std::vector<Acc> acc;
    std::map<uint32_t, TimeNs> imposed;   // rank index -> wait it imposed here
    std::map<uint32_t, std::size_t> lasts;
    for (std::size_t g = 0; g < m.keys.size(); ++g) {
      if (m.comm[g] != static_cast<int>(ci)) continue;
      auto [it, inserted] = op_index.try_emplace(m.operation[g], rep.operations.size());
      if (inserted) rep.operations.emplace_back().operation = m.operation[g], acc.emplace_back();
      CommunicatorOperation& op = rep.operations[it->second];
      Acc& a = acc[it->second];
      op.bus_factor = bus_bandwidth_factor(op.operation, c.size);
      for (uint32_t j : of_group[g]) {
        const Instance& in = inst[j];
        const auto [r0, i0] = in.members.front();
        const CollectiveArrival& first = s[r0].collectives[i0];
        if (op.instances == 0 || first.bytes < op.bytes_min) op.bytes_min = first.bytes;
        op.bytes_max = std::max(op.bytes_max, first.bytes);
        op.bytes_total += first.bytes;
        if (op.data_type.empty()) op.data_type = s[r0].names[first.data_type];
        ++op.instances;
        op.real_ns += in.real_ns;
        const uint64_t alg = algorithm_bytes(op.operation, first.bytes, c.size);
        a.alg_bytes += alg;
        if (in.real_ns > 0) a.busbw.push_back(gbs(alg, in.real_ns) * op.bus_factor);
        ++a.algorithms[s[r0].names[first.algorithm]];
        ++a.protocols[s[r0].names[first.protocol]];
        for (auto [r, i] : in.members) op.wait_ns += in.last_start - s[r].collectives[i].start;
        if (in.late_rank != UINT32_MAX) imposed[in.late_rank] += in.imposed_ns, ++lasts[in.late_rank];
      }
    }
    for (std::size_t k = 0; k < rep.operations.size(); ++k) {
      CommunicatorOperation& op = rep.operations[k];
      op.algorithm = most_common(acc[k].algorithms);
      op.protocol = most_common(acc[k].protocols);
      op.algbw_gb_per_s = gbs(acc[k].alg_bytes, op.real_ns);
      op.busbw_gb_per_s = op.algbw_gb_per_s * op.bus_factor;
      if (!acc[k].busbw.empty()) {
        auto& v = acc[k].busbw;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        op.busbw_median_gb_per_s = v[v.size() / 2];
      }
      if (rep.link_peak_gb_per_s > 0) op.link_share = op.busbw_gb_per_s / rep.link_peak_gb_per_s;
      rep.instances += op.instances;
      rep.real_ns += op.real_ns;
      rep.wait_ns += op.wait_ns;
      if (rep.link_peak_gb_per_s > 0 && op.bus_factor > 0 && op.bytes_max >= kBandwidthFindingMinBytes &&
          op.link_share < o.link_share_threshold)
        rep.findings.push_back(fmt::format(
            "{} on communicator {} (ranks {}): bus bandwidth {:.1f} GB/s is {:.0f}% of the {} peak ({:.1f} GB/s per "
            "direction), below {:.0f}%: {} calls of {} to {} bytes, {} {}",
            op.operation, rep.id, rank_list(rep.ranks), op.busbw_gb_per_s, 100 * op.link_share, rep.link_kind,
            rep.link_peak_gb_per_s, 100 * o.link_share_threshold, op.instances, op.bytes_min, op.bytes_max,
            op.algorithm.empty() ? "(algorithm not recorded)" : op.algorithm, op.protocol));
    }
    // A straggler of this communicator: as the job-wide test (multi_rank.cpp), over its instances only.
    if (c.members.size() >= 2 && rep.instances > 0) {
      const double interval = static_cast<double>(span) / static_cast<double>(rep.instances);
      uint32_t worst = UINT32_MAX;
      for (auto [cr, r] : c.members) {
        std::vector<TimeNs> others;
        for (auto [co, o2] : c.members)
          if (o2 != r) others.push_back(imposed[o2]);
        const TimeNs mine = imposed[r];
        if (mine <= 0 || lasts[r] == 0 || mine < 2 * median_ns(others) || mine * 50 < span ||
            static_cast<double>(mine) / static_cast<double>(lasts[r]) < 0.1 * interval)
          continue;
        if (worst == UINT32_MAX || mine > imposed[worst]) worst = r;
      }
      if (worst != UINT32_MAX) {
        rep.straggler = s[worst].identity.rank;
        rep.straggler_imposed_ns = imposed[worst];
        late_in[rep.straggler].push_back(ci);
        rep.findings.push_back(fmt::format(
            "rank {} makes the other members of communicator {} (ranks {}) wait {:.3f} ms in all: it arrived last at "
            "{} of its {} calls",
            rep.straggler, rep.id, rank_list(rep.ranks), imposed[worst] / 1e6, lasts[worst], rep.instances));
      }
    }
    out.communicators.push_back(std::move(rep));
  }
  // A slow group: every member of one communicator straggles in others (a tensor-parallel group slower than
  // its data-parallel peers).
  for (const CommunicatorReport& c : out.communicators) {
    if (c.ranks.size() < 2 || c.straggler >= 0) continue;
    std::set<std::string> where;
    bool all = true;
    for (int64_t r : c.ranks) {
      auto it = late_in.find(r);
      all = all && it != late_in.end();
      if (it != late_in.end())
        for (std::size_t ci : it->second) where.insert(out.communicators[ci].id);
    }
    if (all && !where.count(c.id))
      out.findings.push_back(fmt::format(
          "ranks {}, all the members of communicator {}, each arrive last at their other communicators ({}): that "
          "group is slower as a whole, not one rank of it",
          rank_list(c.ranks), c.id, fmt::join(where, ", ")));
  }
}

}  // namespace rpl::analysis::detail
