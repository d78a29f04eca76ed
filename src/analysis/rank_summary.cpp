#include "analysis/rank_summary.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <unordered_map>

#include "analysis/collective_calls.hpp"
#include "analysis/collectives.hpp"
#include "analysis/time_interval.hpp"
#include "support/user_regex.hpp"

namespace rpl::analysis {
namespace {

// Sorts and merges in place; returns the covered length.
TimeNs merge_intervals(std::vector<TimeInterval>& v) {
  std::sort(v.begin(), v.end(), [](const TimeInterval& a, const TimeInterval& b) { return a.start < b.start; });
  std::size_t out = 0;
  for (const TimeInterval& i : v) {
    if (out > 0 && i.start <= v[out - 1].end) {
      v[out - 1].end = std::max(v[out - 1].end, i.end);
    } else {
      v[out++] = i;
    }
  }
  v.resize(out);
  TimeNs total = 0;
  for (const TimeInterval& i : v) total += i.end - i.start;
  return total;
}

TimeNs intersection(const std::vector<TimeInterval>& a, const std::vector<TimeInterval>& b) {
  TimeNs total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    TimeNs lo = std::max(a[i].start, b[j].start), hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    (a[i].end < b[j].end) ? ++i : ++j;
  }
  return total;
}

// Adds the merged intervals' coverage of each bin of [origin, origin + bins * width).
std::vector<float> bin_coverage(const std::vector<TimeInterval>& merged, TimeNs origin, TimeNs span) {
  std::vector<float> bins(kActivityBins, 0.0f);
  if (span <= 0) return bins;
  const double width = static_cast<double>(span) / kActivityBins;
  for (const TimeInterval& i : merged) {
    double a = (i.start - origin) / width, b = (i.end - origin) / width;
    for (auto k = static_cast<std::size_t>(std::max(0.0, a)); k < kActivityBins && k < b; ++k) {
      double lo = std::max(a, static_cast<double>(k)), hi = std::min(b, static_cast<double>(k + 1));
      if (hi > lo) bins[k] += static_cast<float>(hi - lo);
    }
  }
  for (float& f : bins) f = std::min(f, 1.0f);
  return bins;
}

class Summarizer {
 public:
  Summarizer(const Trace& t, Index process, const RankSummaryOptions& o) : t_(t), process_(process), o_(o) {
    for (const WhatIf& w : o.what_if) regexes_.emplace_back(w.pattern, "--what-if");
  }

  RankSummary run() {
    const Process& p = t_.processes[process_];
    s_.identity = p.rank;
    s_.host = p.hostname;
    s_.pid = p.pid;
    s_.source_file = p.source_file;
    s_.names.emplace_back();
    for (const WhatIf& w : o_.what_if) s_.what_if.push_back(fmt::format("{}={}", w.pattern, w.factor));
    describe_gpu();
    classify_symbols();

    struct Work {
      TimeNs start, end;
      Index symbol;
    };
    std::vector<Work> compute;
    std::vector<TimeInterval> compute_iv, comm_iv;
    bool any = false;
    auto extend = [&](TimeNs a, TimeNs b) {
      s_.first_start = any ? std::min(s_.first_start, a) : a;
      s_.last_end = any ? std::max(s_.last_end, b) : b;
      any = true;
    };
    std::unordered_map<uint32_t, uint32_t> sequence;  // per key
    std::vector<Index> collective_dispatch;            // parallel to s_.collectives
    for (Index di = 0; di < t_.dispatches.size(); ++di) {
      const Dispatch& d = t_.dispatches[di];
      if (d.process != process_) continue;
      ++s_.dispatches;
      s_.kernel_time_ns += d.end - d.start;
      extend(d.start, d.end);
      uint32_t key = d.symbol < collective_key_.size() ? collective_key_[d.symbol] : 0;
      if (key) {
        ++s_.collective_kernels;
        comm_iv.push_back({d.start, d.end});
        s_.collectives.push_back({key, 0, d.start, d.end});
        collective_dispatch.push_back(di);
      } else {
        compute_iv.push_back({d.start, d.end});
        compute.push_back({d.start, d.end, d.symbol});
      }
    }
    for (const MemoryCopy& c : t_.copies) {
      if (c.process != process_) continue;
      extend(c.start, c.end);
      bool different = c.src_agent != kNoIndex && c.dst_agent != kNoIndex && c.src_agent != c.dst_agent;
      if (!is_peer_copy(t_.strings.at(c.kind), different)) continue;
      ++s_.peer_copies;
      s_.peer_copy_bytes += c.bytes;
      comm_iv.push_back({c.start, c.end});
    }
    std::unordered_map<std::string, uint64_t> calls;
    for (const ApiCall& a : t_.api_calls)
      if (a.process == process_)
        if (std::string call = nccl_call_of_marker(t_.strings.at(a.name)); !call.empty()) ++calls[call];
    s_.nccl_calls.assign(calls.begin(), calls.end());
    std::sort(s_.nccl_calls.begin(), s_.nccl_calls.end());

    attach_calls(collective_dispatch);
    std::sort(s_.collectives.begin(), s_.collectives.end(),
              [](const CollectiveArrival& a, const CollectiveArrival& b) { return a.start < b.start; });
    for (CollectiveArrival& c : s_.collectives) c.sequence = sequence[c.key]++;
    describe_links();
    build_segments(compute);

    s_.copies = copy_summary(t_, process_);
    s_.ranges = range_summary(t_, process_);
    s_.compute_ns = merge_intervals(compute_iv);
    s_.communication_ns = merge_intervals(comm_iv);
    s_.overlap_ns = intersection(compute_iv, comm_iv);
    const TimeNs span = s_.last_end - s_.first_start;
    s_.compute_bins = bin_coverage(compute_iv, s_.first_start, span);
    s_.communication_bins = bin_coverage(comm_iv, s_.first_start, span);
    return std::move(s_);
  }

 private:
  uint32_t name_id(const std::string& name) {
    if (name.empty()) return 0;
    auto [it, inserted] = name_ids_.try_emplace(name, static_cast<uint32_t>(s_.names.size()));
    if (inserted) s_.names.push_back(name);
    return it->second;
  }

  void describe_gpu() {
    for (const Agent& a : t_.agents) {
      if (a.process != process_ || !a.is_gpu) continue;
      s_.gpu = !a.uuid.empty() ? a.uuid : fmt::format("{} #{}", a.product_name, a.logical_index);
      // The first GPU that ran work is the rank's; enough for the usual one-GPU-per-rank jobs.
      for (const Dispatch& d : t_.dispatches)
        if (d.process == process_ && d.agent != kNoIndex) {
          const Agent& used = t_.agents[d.agent];
          s_.gpu = !used.uuid.empty() ? used.uuid : fmt::format("{} #{}", used.product_name, used.logical_index);
          break;
        }
      break;
    }
  }

  // The library's calls joined to the kernels that ran them (analysis/collective_calls.hpp).
  void attach_calls(const std::vector<Index>& dispatches) {
    std::vector<std::size_t> order(dispatches.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    // Launch order: correlation ids where the collector recorded them, else start times.
    const bool correlated = std::all_of(dispatches.begin(), dispatches.end(),
                                        [&](Index d) { return t_.dispatches[d].correlation_id != 0; });
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Dispatch &x = t_.dispatches[dispatches[a]], &y = t_.dispatches[dispatches[b]];
      return correlated ? x.correlation_id < y.correlation_id : x.start < y.start;
    });
    std::vector<Index> launched;
    for (std::size_t i : order) launched.push_back(dispatches[i]);
    const CallLinks links = link_collective_calls(t_, process_, launched);
    s_.calls_recorded = links.calls;
    s_.calls_unlinked = links.unlinked_calls;
    if (links.calls == 0) return;
    s_.communicators.emplace_back();
    std::unordered_map<uint64_t, uint32_t> comm_index;
    for (std::size_t n = 0; n < order.size(); ++n) {
      const std::vector<Index>& calls = links.calls_of_kernel[n];
      if (calls.empty()) continue;
      CollectiveArrival& a = s_.collectives[order[n]];
      const CollectiveCall& first = t_.collective_calls[calls.front()];
      auto [it, inserted] = comm_index.try_emplace(first.comm_id, static_cast<uint32_t>(s_.communicators.size()));
      if (inserted) s_.communicators.push_back({first.comm_id, first.comm_size, first.comm_rank, first.comm_nodes});
      a.comm = it->second;
      a.comm_sequence = first.sequence;
      a.calls = static_cast<uint32_t>(calls.size());
      // A group of sends and receives is one SendRecv moving the larger direction's bytes (nccl-tests' size).
      std::string operation = first.operation;
      bool p2p = true;
      uint64_t sent = 0, received = 0;
      for (Index c : calls) {
        const CollectiveCall& call = t_.collective_calls[c];
        a.count += call.count;
        a.bytes += call.bytes;
        (call.operation == "Recv" ? received : sent) += call.bytes;
        p2p = p2p && (call.operation == "Send" || call.operation == "Recv");
        if (call.operation != operation) operation = "Group";
      }
      if (p2p && operation == "Group") operation = "SendRecv", a.bytes = std::max(sent, received);
      a.operation = name_id(operation);
      a.data_type = name_id(first.data_type);
      a.root = first.root;
      a.peer = first.peer;
      a.algorithm = name_id(first.algorithm);
      a.protocol = name_id(first.protocol);
    }
  }

  // The recorded links of the rank's GPU (matched by UUID), so that the merge can name each
  // communicator's slowest link.
  void describe_links() {
    for (const GpuLink& l : t_.gpu_links)
      if (l.process == process_ && l.gpu_uuid == s_.gpu) s_.links.push_back({l.peer_uuid, l.kind, l.links, l.gb_per_s});
  }

  void classify_symbols() {
    collective_key_.assign(t_.symbols.size(), 0);
    symbol_factor_.assign(t_.symbols.size(), std::vector<double>(regexes_.size(), 1.0));
    for (std::size_t i = 0; i < t_.symbols.size(); ++i) {
      if (t_.symbols[i].process != process_) continue;
      const std::string& name = t_.strings.at(t_.symbols[i].display_name);
      if (auto c = parse_collective_kernel(name)) {
        collective_key_[i] = name_id(c->key);
        continue;
      }
      for (std::size_t w = 0; w < regexes_.size(); ++w)
        if (regexes_[w].search(name)) symbol_factor_[i][w] = o_.what_if[w].factor;
    }
  }

  // Compute kernels are attributed to the segment they start in: segment k ends at collective k's start.
  template <typename Work>
  void build_segments(std::vector<Work>& compute) {
    std::sort(compute.begin(), compute.end(), [](const Work& a, const Work& b) { return a.start < b.start; });
    s_.segments.assign(s_.collectives.size() + 1, WorkSegment{});
    std::size_t next = 0;
    std::unordered_map<Index, TimeNs> per_symbol;
    for (std::size_t k = 0; k < s_.segments.size(); ++k) {
      WorkSegment& seg = s_.segments[k];
      seg.saved_ns.assign(regexes_.size(), 0);
      const TimeNs limit = k < s_.collectives.size() ? s_.collectives[k].start : std::numeric_limits<TimeNs>::max();
      per_symbol.clear();
      for (; next < compute.size() && compute[next].start < limit; ++next) {
        const Work& w = compute[next];
        const TimeNs d = w.end - w.start;
        seg.busy_ns += d;
        per_symbol[w.symbol] += d;
        for (std::size_t s = 0; s < regexes_.size(); ++s)
          seg.saved_ns[s] += static_cast<TimeNs>(static_cast<double>(d) * (1.0 - symbol_factor_[w.symbol][s]));
      }
      for (const auto& [symbol, ns] : per_symbol)
        if (ns > seg.top_kernel_ns) {
          seg.top_kernel_ns = ns;
          seg.top_kernel = name_id(t_.strings.at(t_.symbols[symbol].display_name));
        }
    }
  }

  const Trace& t_;
  Index process_;
  const RankSummaryOptions& o_;
  std::vector<UserRegex> regexes_;
  RankSummary s_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  std::vector<uint32_t> collective_key_;              // per symbol: 0 or the key's name id
  std::vector<std::vector<double>> symbol_factor_;    // per symbol, per scenario
};

}  // namespace

std::vector<RankSummary> summarize_ranks(const Trace& trace, const RankSummaryOptions& options) {
  std::vector<RankSummary> out;
  for (Index p = 0; p < trace.processes.size(); ++p) out.push_back(Summarizer(trace, p, options).run());
  return out;
}

}  // namespace rpl::analysis
