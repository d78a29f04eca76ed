// Pairing counter samples with trace dispatches. See counter_pairing.hpp.
#include "analysis/counter_pairing.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace rpl::analysis {
namespace {

// pair_counter_samples's steps, in the order pair() runs them.
class CounterPairer {
 public:
  CounterPairer(const Trace& trace, const CounterSamples& samples) : trace_(trace), samples_(samples) {}

  CounterPairing pair() {
    result_.warnings = samples_.warnings;
    index_trace_kernels();
    decide_per_process();
    group_dispatches();
    note_values_the_trace_holds();
    for (const CounterInstance& instance : samples_.instances) pair_instance(instance);
    warn_about_counts();
    return std::move(result_);
  }

 private:
  static uint64_t group_key(Index name, Index process) { return (static_cast<uint64_t>(name) << 32) | process; }
  static uint64_t value_key(Index dispatch, std::size_t counter) {
    return (static_cast<uint64_t>(dispatch) << 32) | static_cast<uint32_t>(counter);
  }
  bool by_printed_name() const { return samples_.kernel_names == CounterKernelNames::MangledOrDemangled; }

  // The trace's kernels (display-name string ids) by display name, and for printed names also by mangled
  // and base name.
  void index_trace_kernels() {
    for (const KernelSymbol& s : trace_.symbols) {
      const std::string& display = trace_.strings.at(s.display_name);
      by_display_.try_emplace(display, s.display_name);
      if (!by_printed_name()) continue;
      by_mangled_.try_emplace(trace_.strings.at(s.mangled_name), s.display_name);
      auto& v = by_base_[kernel_base_name(display)];
      if (std::find(v.begin(), v.end(), s.display_name) == v.end()) v.push_back(s.display_name);
    }
  }

  // Which trace process each instance's process is, or across all processes (said once).
  void decide_per_process() {
    if (samples_.processes == CounterProcesses::ById) {
      std::set<int64_t> pids;
      for (const auto& i : samples_.instances) pids.insert(i.process);
      for (Index p = 0; p < trace_.processes.size(); ++p) trace_process_of_.try_emplace(trace_.processes[p].pid, p);
      per_process_ = std::all_of(pids.begin(), pids.end(), [&](int64_t pid) { return trace_process_of_.count(pid) > 0; });
      if (!per_process_ && pids.size() > 1)
        result_.warnings.push_back(fmt::format("{} profiled {} processes whose ids are not in the trace: dispatches are "
                                               "matched by launch order across all processes",
                                               samples_.tool, pids.size()));
      return;
    }
    per_process_ = samples_.process_count == trace_.processes.size();
    if (!per_process_) {
      result_.warnings.push_back(fmt::format("the counter run had {} process(es), the trace run {}: launches are paired "
                                             "across all processes",
                                             samples_.process_count, trace_.processes.size()));
      return;
    }
    const auto order = processes_in_start_order(trace_);
    for (std::size_t rank = 0; rank < order.size(); ++rank)
      trace_process_of_.emplace(static_cast<int64_t>(rank), order[rank]);
  }

  Index trace_process_of(const CounterInstance& i) const {
    if (!per_process_) return kNoIndex;
    auto it = trace_process_of_.find(i.process);
    return it == trace_process_of_.end() ? kNoIndex : it->second;
  }

  // Dispatch lists per (kernel, process or all), in launch order.
  void group_dispatches() {
    for (Index d = 0; d < trace_.dispatches.size(); ++d) {
      const Dispatch& disp = trace_.dispatches[d];
      if (disp.symbol >= trace_.symbols.size()) continue;
      const Index process = per_process_ ? disp.process : kNoIndex;
      dispatches_of_[group_key(trace_.symbols[disp.symbol].display_name, process)].push_back(d);
    }
    for (auto& [key, list] : dispatches_of_)
      std::stable_sort(list.begin(), list.end(), [&](Index a, Index b) {
        const Dispatch &x = trace_.dispatches[a], &y = trace_.dispatches[b];
        return x.start != y.start ? x.start < y.start : x.dispatch_id < y.dispatch_id;
      });
  }

  // Counters are compared by name: the trace's values, and a counter the samples name twice, count once.
  void note_values_the_trace_holds() {
    std::unordered_map<std::string, std::size_t> first_of_name;
    counter_id_.resize(samples_.counters.size());
    for (std::size_t c = 0; c < samples_.counters.size(); ++c)
      counter_id_[c] = first_of_name.try_emplace(samples_.counters[c], c).first->second;
    for (const CounterSample& s : trace_.counters)
      if (auto it = first_of_name.find(trace_.strings.at(s.counter)); it != first_of_name.end())
        held_.insert(value_key(s.dispatch, it->second));
  }

  // The trace's kernel (display-name id) an instance's name means; kNoIndex when none or ambiguous.
  Index trace_kernel_of(const std::string& name) {
    if (by_printed_name())
      if (auto it = by_mangled_.find(name); it != by_mangled_.end()) return it->second;
    if (auto it = by_display_.find(name); it != by_display_.end()) return it->second;
    if (!by_printed_name()) return kNoIndex;
    if (auto it = by_base_.find(kernel_base_name(name)); it != by_base_.end()) {
      if (it->second.size() == 1) return it->second.front();
      ambiguous_names_.insert(name);
    }
    return kNoIndex;
  }

  void pair_instance(const CounterInstance& instance) {
    const Index name = trace_kernel_of(instance.kernel);
    if (name == kNoIndex) {
      if (instance.measured) {
        if (!ambiguous_names_.count(instance.kernel)) ++unknown_names_[instance.kernel];
        ++result_.unmatched_instances;
      }
      return;
    }
    const uint64_t key = group_key(name, trace_process_of(instance));
    const std::size_t occurrence = launches_of_group_[key]++;
    if (!instance.measured) return;
    auto it = dispatches_of_.find(key);
    if (it == dispatches_of_.end() || occurrence >= it->second.size()) {
      ++extra_of_group_[key];
      ++result_.unmatched_instances;
      return;
    }
    const Index d = it->second[occurrence];
    if (!same_geometry(instance, trace_.dispatches[d])) ++size_mismatches_;
    ++result_.matched_instances;
    add_values(instance, d);
  }

  static bool same_geometry(const CounterInstance& i, const Dispatch& disp) {
    if (!i.grid || !i.block) return true;  // nothing to compare
    for (int j = 0; j < 3; ++j)
      if (disp.block[j] != (*i.block)[j] || disp.grid[j] != (*i.grid)[j]) return false;
    return true;
  }

  void add_values(const CounterInstance& instance, Index d) {
    for (const auto& [c, value] : instance.values) {
      if (c >= counter_id_.size() || !held_.insert(value_key(d, counter_id_[c])).second) continue;
      result_.values.push_back({d, c, value});
    }
  }

  void warn_about_counts() {
    const std::string& tool = samples_.tool;
    for (const auto& [key, launches] : launches_of_group_) {
      auto it = dispatches_of_.find(key);
      const std::size_t available = it == dispatches_of_.end() ? 0 : it->second.size();
      const std::string& name = trace_.strings.at(static_cast<Index>(key >> 32));
      if (auto extra = extra_of_group_.find(key); extra != extra_of_group_.end())
        result_.warnings.push_back(fmt::format("{} profiled {} instance(s) of '{}' but the trace has {} dispatch(es) of it: "
                                               "it ran {} more time(s) in the counter run, and the {} extra instance(s) "
                                               "were skipped (is the trace from the same program and inputs?)",
                                               tool, launches, name, available, extra->second, extra->second));
      else if (launches < available)
        result_.warnings.push_back(fmt::format("{} profiled {} of the {} dispatch(es) of '{}': only the first {} have "
                                               "counters",
                                               tool, launches, available, name, launches));
    }
    for (const auto& [n, count] : unknown_names_)
      result_.warnings.push_back(fmt::format("{} kernel '{}' matches no kernel of the trace (the trace run has no such "
                                             "kernel): its {} instance(s) were skipped",
                                             tool, n, count));
    for (const auto& n : ambiguous_names_)
      result_.warnings.push_back(fmt::format("{} kernel '{}' matches several kernels of the trace by base name; run ncu "
                                             "with --print-kernel-base mangled",
                                             tool, n));
    if (size_mismatches_)
      result_.warnings.push_back(fmt::format("{} matched instance(s) have a grid or block size different from their "
                                             "dispatch: the launch-order pairing is probably off",
                                             size_mismatches_));
  }

  const Trace& trace_;
  const CounterSamples& samples_;
  CounterPairing result_;
  std::unordered_map<std::string, Index> by_mangled_, by_display_;
  std::unordered_map<std::string, std::vector<Index>> by_base_;  // base name -> display names
  std::unordered_map<int64_t, Index> trace_process_of_;          // instance process -> trace process
  bool per_process_ = false;
  std::unordered_map<uint64_t, std::vector<Index>> dispatches_of_;
  std::vector<std::size_t> counter_id_;  // counter -> the first counter of its name
  std::unordered_set<uint64_t> held_;    // (dispatch, counter id) with a value
  std::map<uint64_t, std::size_t> launches_of_group_, extra_of_group_;
  std::map<std::string, std::size_t> unknown_names_;
  std::set<std::string> ambiguous_names_;
  std::size_t size_mismatches_ = 0;
};

}  // namespace

CounterPairing pair_counter_samples(const Trace& trace, const CounterSamples& samples) {
  return CounterPairer(trace, samples).pair();
}

CounterPairing attach_counter_samples(Trace& trace, const CounterSamples& samples) {
  CounterPairing pairing = pair_counter_samples(trace, samples);
  std::vector<Index> ids;
  for (const auto& name : samples.counters) ids.push_back(trace.strings.intern(name));
  for (const auto& v : pairing.values) trace.counters.push_back({v.dispatch, ids[v.counter], v.value});
  return pairing;
}

std::string kernel_base_name(std::string_view name) {
  // Parameter list: the last top-level '(' ... ')' at the end.
  std::string_view s = name;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      else if (s[i] == '(' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  // Return type: everything up to the last space outside template brackets and parentheses
  // ("void (anonymous namespace)::k" keeps "(anonymous namespace)::k").
  int depth = 0;
  std::size_t cut = std::string_view::npos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    else if (s[i] == '>' || s[i] == ')') --depth;
    else if (s[i] == ' ' && depth == 0 && i + 1 < s.size() && s[i + 1] != '>') cut = i;
  }
  if (cut != std::string_view::npos) s = s.substr(cut + 1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace rpl::analysis
