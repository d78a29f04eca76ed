#include "analysis/logged_library_calls.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/analysis_window.hpp"
#include "model/kernel_origin.hpp"

namespace rpl::analysis {
namespace {

constexpr TimeNs kClockSlackNs = 2'000'000'000;  // a log's time this far outside the process's trace: another clock

struct LoggedLaunch {
  TimeNs host_start = 0, host_end = 0;  // the launching API call
  uint32_t thread = 0;
  TimeNs gpu_start = 0, gpu_end = 0;
  bool dnn = false, blas = false;       // the kernel's library family
  bool taken = false;
};

// Per process, the kernel launches whose launching API call the trace holds, by host start.
std::vector<std::vector<LoggedLaunch>> launches_by_process(const Trace& trace) {
  // (process, correlation id) -> the launching call: the earliest with that id (a runtime call encloses the driver
  // call it makes, both with the kernel's correlation id)
  std::unordered_map<uint64_t, std::size_t> api;
  for (std::size_t i = 0; i < trace.api_calls.size(); ++i) {
    const ApiCall& a = trace.api_calls[i];
    if (a.correlation_id == 0 || is_marker_range(trace, a)) continue;
    auto [it, added] = api.emplace((static_cast<uint64_t>(a.process) << 40) ^ static_cast<uint64_t>(a.correlation_id), i);
    if (!added && a.start < trace.api_calls[it->second].start) it->second = i;
  }
  std::vector<std::pair<bool, bool>> family(trace.symbols.size());  // (blas, dnn) per symbol
  for (std::size_t s = 0; s < trace.symbols.size(); ++s) {
    const std::string library = kernel_origin(trace.strings.at(trace.symbols[s].display_name)).library;
    family[s] = {library == "cuBLAS" || library == "CUTLASS", library == "cuDNN" || library == "CUTLASS"};
  }
  std::vector<std::vector<LoggedLaunch>> out(trace.processes.size());
  for (const Dispatch& d : trace.dispatches) {
    if (d.correlation_id == 0 || d.process >= out.size() || d.symbol >= family.size()) continue;
    const auto it = api.find((static_cast<uint64_t>(d.process) << 40) ^ static_cast<uint64_t>(d.correlation_id));
    if (it == api.end()) continue;
    const ApiCall& a = trace.api_calls[it->second];
    LoggedLaunch l;
    l.host_start = a.start;
    l.host_end = std::max(a.start, a.end);
    l.thread = a.thread;
    l.gpu_start = d.start;
    l.gpu_end = std::max(d.start, d.end);
    l.blas = family[d.symbol].first;
    l.dnn = family[d.symbol].second;
    out[d.process].push_back(l);
  }
  for (auto& v : out)
    std::stable_sort(v.begin(), v.end(), [](const LoggedLaunch& a, const LoggedLaunch& b) { return a.host_start < b.host_start; });
  return out;
}

// Whether the logs' clock matches the process's trace: some logged call lies within the trace's span (with slack).
bool clocks_agree(const Trace& trace, Index process, const std::vector<const LoggedLibraryCall*>& calls) {
  TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
  for (const ApiCall& a : trace.api_calls)
    if (a.process == process) lo = std::min(lo, a.start), hi = std::max(hi, a.end);
  if (lo > hi) return false;
  return std::any_of(calls.begin(), calls.end(), [&](const LoggedLibraryCall* c) {
    return c->resolution > 0 && c->time + c->resolution >= lo - kClockSlackNs && c->time <= hi + kClockSlackNs;
  });
}

void link_calls(LibraryCall& call, const std::vector<LoggedLaunch*>& launches, CallLink how, LoggedCallLinks& links) {
  std::vector<std::pair<TimeNs, TimeNs>> busy;
  TimeNs first = std::numeric_limits<TimeNs>::max(), last = call.start;
  for (LoggedLaunch* l : launches) {
    l->taken = true;
    busy.emplace_back(l->gpu_start, l->gpu_end);
    first = std::min(first, l->host_start);
    last = std::max(last, l->host_end);
  }
  std::sort(busy.begin(), busy.end());
  TimeNs covered_to = std::numeric_limits<TimeNs>::min();
  for (const auto& [s, e] : busy) {
    const TimeNs from = std::max(s, covered_to);
    if (e > from) call.gpu_busy_ns += e - from;
    covered_to = std::max(covered_to, e);
  }
  // A time stamp of whole seconds only says the call started within that second: its first launch is the best
  // start the trace gives.
  if (call.resolution >= 1'000'000 && first != std::numeric_limits<TimeNs>::max()) call.start = std::max(call.start, first);
  call.end = std::max({call.start, call.end, last});
  if (!launches.empty()) call.thread = launches.front()->thread;  // the trace's id (cuBLAS logs pthread_self)
  call.gpu_kernels = launches.size();
  call.link = how;
  ++(how == CallLink::Order ? links.order : links.time_window);
  links.linked_kernels += launches.size();
}

}  // namespace

std::vector<LibraryCall> logged_library_calls(const Trace& trace, const std::vector<LoggedLibraryCall>& logged,
                                              LoggedCallLinks* links_out) {
  LoggedCallLinks links;
  links.calls = logged.size();
  std::map<int64_t, Index> process_of_pid;
  for (std::size_t p = 0; p < trace.processes.size(); ++p) process_of_pid.emplace(trace.processes[p].pid, static_cast<Index>(p));

  std::vector<LibraryCall> out(logged.size());
  std::map<Index, std::vector<const LoggedLibraryCall*>> by_process;
  for (std::size_t i = 0; i < logged.size(); ++i) {
    const LoggedLibraryCall& l = logged[i];
    LibraryCall& c = out[i];
    c.call = LibraryFunction{l.library, l.function};
    c.pid = l.pid;
    c.thread = static_cast<uint32_t>(l.thread);
    c.start = l.time;
    c.end = l.end > l.time ? l.end : l.time;  // cuDNN 9's return record
    c.link = CallLink::None;
    c.arguments = l.arguments;
    c.resolution = l.resolution;
    if (auto it = process_of_pid.find(l.pid); it != process_of_pid.end()) {
      c.process = it->second;
      by_process[it->second].push_back(&l);
    }
  }
  std::vector<std::vector<LoggedLaunch>> launches = launches_by_process(trace);
  std::vector<std::set<uint32_t>> launch_threads(launches.size());
  for (std::size_t p = 0; p < launches.size(); ++p)
    for (const LoggedLaunch& l : launches[p]) launch_threads[p].insert(l.thread);
  std::vector<bool> clock_ok(trace.processes.size(), false);
  for (const auto& [p, calls] : by_process) clock_ok[p] = clocks_agree(trace, p, calls);

  // Groups: (library, process, thread or -1 for any thread) -> the calls that may launch work, in log order.
  static constexpr const char* kLinkOrder[] = {"cuBLAS", "cuDNN", "cuBLASLt"};
  auto rank = [](const std::string& library) {
    for (std::size_t r = 0; r < std::size(kLinkOrder); ++r)
      if (library == kLinkOrder[r]) return r;
    return std::size(kLinkOrder);
  };
  std::map<std::tuple<std::size_t, std::string, Index, int64_t>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < logged.size(); ++i) {
    const LoggedLibraryCall& l = logged[i];
    if (!l.may_launch_work) {
      ++links.set_up;
      continue;
    }
    if (l.resolution <= 0) {
      ++links.untimed;
      continue;
    }
    const Index p = out[i].process;
    if (p == kNoIndex || !clock_ok[p]) {
      ++links.not_in_trace;
      continue;
    }
    const uint32_t tid = static_cast<uint32_t>(l.thread);
    const bool thread_in_trace = l.thread != 0 && launch_threads[p].count(tid) > 0;
    groups[{rank(l.library), l.library, p, thread_in_trace ? static_cast<int64_t>(tid) : -1}].push_back(i);
  }
  // The launches in [from, to) of process p not taken yet, of the library family, on `thread` (-1: any).
  auto window = [&](Index p, TimeNs from, TimeNs to, bool dnn, int64_t thread) {
    std::vector<LoggedLaunch*> in_window;
    std::vector<LoggedLaunch>& of_process = launches[p];
    auto first = std::lower_bound(of_process.begin(), of_process.end(), from,
                                  [](const LoggedLaunch& l, TimeNs t) { return l.host_start < t; });
    for (auto it = first; it != of_process.end() && it->host_start < to; ++it)
      if (!it->taken && (dnn ? it->dnn : it->blas) && (thread < 0 || it->thread == static_cast<uint32_t>(thread)))
        in_window.push_back(&*it);
    return in_window;
  };
  // Calls whose return the log recorded (cuDNN 9) own what their thread launched between call and return, outer
  // calls before the calls they made; they also bound the other calls' windows like any call.
  std::vector<std::pair<std::tuple<std::size_t, std::string, Index, int64_t>, std::size_t>> returned;
  std::vector<std::vector<TimeNs>> starts(launches.size());  // per process: every linkable call's time stamp
  for (auto it = groups.begin(); it != groups.end();) {
    auto& calls = it->second;
    for (std::size_t i : calls) starts[std::get<2>(it->first)].push_back(logged[i].time);
    for (std::size_t i : calls)
      if (logged[i].end > 0) returned.emplace_back(it->first, i);
    calls.erase(std::remove_if(calls.begin(), calls.end(), [&](std::size_t i) { return logged[i].end > 0; }), calls.end());
    it = calls.empty() ? groups.erase(it) : std::next(it);
  }
  for (auto& v : starts) std::sort(v.begin(), v.end());
  std::stable_sort(returned.begin(), returned.end(),
                   [&](const auto& a, const auto& b) { return logged[a.second].time < logged[b.second].time; });
  for (const auto& [key, i] : returned) {
    std::vector<LoggedLaunch*> in_call =
        window(std::get<2>(key), logged[i].time, logged[i].end + 1, std::get<1>(key) == "cuDNN", std::get<3>(key));
    if (in_call.empty()) ++links.no_kernels;
    else link_calls(out[i], in_call, CallLink::TimeWindow, links);
  }
  for (auto& group : groups) {  // not a structured binding: `identical` captures `calls` (clang 15 cannot)
    const auto& key = group.first;
    std::vector<std::size_t>& calls = group.second;
    const Index p = std::get<2>(key);
    const bool dnn = std::get<1>(key) == "cuDNN";
    const int64_t thread = std::get<3>(key);
    std::stable_sort(calls.begin(), calls.end(), [&](std::size_t a, std::size_t b) { return logged[a].time < logged[b].time; });
    auto identical = [&](std::size_t from_call, std::size_t to_call) {
      for (std::size_t j = from_call + 1; j < to_call; ++j)
        if (logged[calls[j]].function != logged[calls[from_call]].function ||
            logged[calls[j]].arguments != logged[calls[from_call]].arguments)
          return false;
      return true;
    };
    for (std::size_t g = 0; g < calls.size();) {
      std::size_t g_end = g;
      while (g_end < calls.size() && logged[calls[g_end]].time == logged[calls[g]].time) ++g_end;
      const TimeNs from = logged[calls[g]].time;
      // to the next later call of this log, or of any log of the process that surely started after these calls
      // (at or after the end of their time stamp's resolution): its kernels are not these calls'
      TimeNs to = g_end < calls.size() ? logged[calls[g_end]].time : std::numeric_limits<TimeNs>::max();
      const TimeNs surely_after = from + std::max<TimeNs>(logged[calls[g]].resolution, 1);
      if (auto later = std::lower_bound(starts[p].begin(), starts[p].end(), surely_after); later != starts[p].end())
        to = std::min(to, *later);
      const std::vector<LoggedLaunch*> in_window = window(p, from, to, dnn, thread);
      const std::size_t k = g_end - g;
      if (in_window.empty()) {
        links.no_kernels += k;
      } else if (k == 1) {
        link_calls(out[calls[g]], in_window, CallLink::TimeWindow, links);
      } else if (in_window.size() == k || (in_window.size() % k == 0 && identical(g, g_end))) {
        // one launch per call; or k identical calls (same function and arguments), m launches each (a split-K GEMM
        // launches its reduction too)
        const std::size_t m = in_window.size() / k;
        for (std::size_t j = 0; j < k; ++j)
          link_calls(out[calls[g + j]], {in_window.begin() + j * m, in_window.begin() + (j + 1) * m}, CallLink::Order, links);
      } else {
        links.ambiguous += k;
      }
      g = g_end;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const LibraryCall& a, const LibraryCall& b) {
    return std::tie(a.start, a.process, a.thread) < std::tie(b.start, b.process, b.thread);
  });
  if (links_out) *links_out = links;
  return out;
}

}  // namespace rpl::analysis
