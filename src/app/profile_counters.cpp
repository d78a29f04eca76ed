#include "app/profile_counters.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <nlohmann/json.hpp>

#include "analysis/roofline_counters.hpp"
#include "collectors/counter_pass.hpp"
#include "store/rocpd_reader.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"

namespace rpl::app {
namespace fs = std::filesystem;
namespace {

// Adds one value for trace dispatch `d` to the entry of the database that holds it.
void add_value(CounterMatch& m, std::map<std::string, std::size_t>& slot, const Trace& trace, Index d,
               const std::string& counter, double value) {
  const Process& p = trace.processes[trace.dispatches[d].process];
  const std::string key = p.source_file + '\n' + p.guid;
  auto [it, fresh] = slot.try_emplace(key, m.databases.size());
  if (fresh) m.databases.push_back({p.source_file, p.guid, {}});
  m.databases[it->second].values.push_back({trace.dispatches[d].dispatch_id, counter, value});
  ++m.values;
}

// Dispatches grouped by (process rank, display name), each group in launch order. Ranks order processes
// by start time, then pid: the same command's processes start in the same order in every run.
using Groups = std::map<std::pair<std::size_t, std::string>, std::vector<Index>>;
Groups occurrence_groups(const Trace& t, bool per_process) {
  std::vector<Index> order(t.processes.size());
  std::iota(order.begin(), order.end(), Index{0});
  std::sort(order.begin(), order.end(), [&](Index a, Index b) {
    const Process &x = t.processes[a], &y = t.processes[b];
    return x.start != y.start ? x.start < y.start : x.pid < y.pid;
  });
  std::vector<std::size_t> rank(t.processes.size());
  for (std::size_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
  Groups groups;
  for (Index d = 0; d < t.dispatches.size(); ++d) {
    const Dispatch& disp = t.dispatches[d];
    if (disp.symbol >= t.symbols.size()) continue;
    groups[{per_process && disp.process < rank.size() ? rank[disp.process] : 0, t.kernel_name(disp)}].push_back(d);
  }
  for (auto& [key, list] : groups)
    std::stable_sort(list.begin(), list.end(), [&](Index a, Index b) {
      const Dispatch &x = t.dispatches[a], &y = t.dispatches[b];
      return x.start != y.start ? x.start < y.start : x.dispatch_id < y.dispatch_id;
    });
  return groups;
}

bool same_shape(const Dispatch& a, const Dispatch& b) {
  for (int i = 0; i < 3; ++i)
    if (a.grid[i] != b.grid[i] || a.block[i] != b.block[i]) return false;
  return true;
}

const Agent* profiled_agent(const Trace& trace, std::vector<std::string>& warnings) {
  const Agent* found = nullptr;
  for (const Dispatch& d : trace.dispatches) {
    if (d.agent >= trace.agents.size()) continue;
    const Agent& a = trace.agents[d.agent];
    if (!found) found = &a;
    else if (analysis::normalize_arch(a.name) != analysis::normalize_arch(found->name)) {
      warnings.push_back(fmt::format("the trace has kernels on {} and on {}: the counter sets are chosen for {}",
                                     found->name, a.name, found->name));
      break;
    }
  }
  return found;
}

void merge(CounterMatch& into, CounterMatch&& from) {
  for (auto& db : from.databases) {
    auto it = std::find_if(into.databases.begin(), into.databases.end(), [&](const DatabaseCounterValues& x) {
      return x.database == db.database && x.guid == db.guid;
    });
    if (it == into.databases.end()) into.databases.push_back(std::move(db));
    else it->values.insert(it->values.end(), db.values.begin(), db.values.end());
  }
  into.values += from.values;
  for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
}

std::vector<std::string> unique_metrics(std::vector<std::string> a, const std::vector<std::string>& b) {
  for (const auto& m : b)
    if (std::find(a.begin(), a.end(), m) == a.end()) a.push_back(m);
  return a;
}

bool ncu_available() {
  try {
    collectors::find_ncu();
    return true;
  } catch (const Error&) {
    return false;
  }
}

void collect_nvidia(const CounterCollectionOptions& o, const collectors::CounterPassRequest& req, Trace trace,
                    CounterCollection& c, CounterMatch& m) {
  using collectors::CounterTool;
  CounterTool tool = o.counter_tool;
  // auto: ncu where it is installed (its replay flushes the caches before every pass, so DRAM bytes are
  // cold-cache values, the ones the roofline proof compares); else the in-process CUPTI pass.
  // --counter-launches is a CUPTI-pass feature: with it, auto means cupti.
  if (tool == CounterTool::Auto)
    tool = (ncu_available() && o.launches_per_kernel == 0) || !collectors::find_cupti_counters_library()
               ? CounterTool::Ncu
               : CounterTool::Cupti;
  if (tool == CounterTool::Ncu && o.launches_per_kernel > 0)
    throw Error(ExitCode::Usage, "--counter-launches needs the CUPTI counter pass (librpl_cupti_counters.so, "
                                 "--counter-tool cupti): ncu's launch limits are not per kernel");
  c.tool = collectors::to_string(tool);
  std::vector<std::string> metrics;
  // The classifier reads the deep metrics too, so --roofline collects both (one run; the tool groups them
  // into replay passes itself).
  const auto deep = tool == CounterTool::Cupti ? analysis::cupti_deep_metrics(c.arch) : analysis::ncu_deep_metrics(c.arch);
  metrics = o.roofline ? unique_metrics(analysis::ncu_roofline_metrics(c.arch), deep) : deep;
  c.passes.push_back(metrics);
  auto pass = tool == CounterTool::Cupti ? collectors::run_cupti_counter_pass(req, metrics) : collectors::run_ncu_pass(req, metrics);
  c.commands.push_back(fmt::format("{}", fmt::join(pass.command, " ")));
  c.wall_ns += pass.process.wall_ns;
  c.application_runs += 1;
  for (const auto& w : pass.report.warnings) m.warnings.push_back(w);
  CounterMatch nm = match_ncu_report(std::move(trace), pass.report, metrics, c.tool);
  m.instances = nm.instances;
  m.matched = nm.matched;
  merge(m, std::move(nm));
}

void collect_amd(const CounterCollectionOptions& o, const collectors::CounterPassRequest& req, const Trace& trace,
                 const Agent& agent, CounterCollection& c, CounterMatch& m) {
  c.tool = "rocprofv3";
  if (o.roofline) {
    const auto set = analysis::roofline_counter_set(c.arch);
    if (set.quantities.empty()) {
      m.warnings.push_back("no roofline counter pass: " + set.unavailable_reason);
    } else {
      c.passes = analysis::split_amd_passes(set);
      auto pass = collectors::run_rocprof_pmc_pass(req, analysis::rocprofv3_pmc_input(c.arch));
      c.commands.push_back(fmt::format("{}", fmt::join(pass.command, " ")));
      c.wall_ns += pass.process.wall_ns;
      c.application_runs += pass.pass_databases.size();
      bool first = true;
      for (std::size_t p = 0; p < pass.pass_databases.size(); ++p) {
        rocpd::ReadOptions ro;
        ro.load_api_calls = false;
        ro.lenient = o.lenient;
        Trace pass_trace = rocpd::read_databases(pass.pass_databases[p], ro);
        CounterMatch pm = match_counter_trace(trace, pass_trace);
        for (auto& w : pm.warnings) w = fmt::format("pmc pass {}: {}", p + 1, w);
        // An instance is one kernel launch, whichever passes measured it.
        m.instances = std::max(m.instances, pm.instances);
        m.matched = first ? pm.matched : std::min(m.matched, pm.matched);
        first = false;
        merge(m, std::move(pm));
      }
    }
  }
  if (o.deep) {
    auto att = collectors::run_rocprof_att_pass(req);
    c.commands.push_back(fmt::format("{}", fmt::join(att.command, " ")));
    c.wall_ns += att.process.wall_ns;
    c.application_runs += 1;
    c.att_diagnosis = att.diagnosis;
    std::map<int64_t, std::string> names;  // the ATT run's own dispatch ids -> kernel names
    if (!att.databases.empty()) {
      rocpd::ReadOptions ro;
      ro.load_api_calls = false;
      try {
        Trace t = rocpd::read_databases(att.databases, ro);
        for (const Dispatch& d : t.dispatches) names[d.dispatch_id] = t.kernel_name(d);
      } catch (const Error& e) {
        m.warnings.push_back(std::string("the ATT run's trace could not be read, kernels are unnamed: ") + e.what());
      }
    }
    const uint32_t max_waves = agent.simd_per_cu * agent.max_waves_per_simd;
    for (const auto& out : att.outputs) {
      auto it = names.find(out.dispatch_id);
      c.att.push_back({out.dispatch_id, it == names.end() ? std::string() : it->second,
                       analysis::analyze_att_dispatch(collectors::read_att_dispatch(out), max_waves)});
    }
    if (att.outputs.empty()) m.warnings.push_back("the ATT run decoded nothing: " + att.diagnosis);
  }
}

}  // namespace

CounterMatch match_ncu_report(Trace trace, const collectors::NcuReport& report, const std::vector<std::string>& metrics,
                              const std::string& tool) {
  CounterMatch m;
  const std::size_t before = trace.counters.size();
  collectors::NcuAttachOptions options;
  options.metrics = metrics;
  options.tool = tool;
  const auto r = collectors::attach_ncu_metrics(trace, report, options);
  m.instances = report.kernels.size();
  m.matched = r.matched_instances;
  m.warnings = r.warnings;
  std::map<std::string, std::size_t> slot;
  for (std::size_t i = before; i < trace.counters.size(); ++i) {
    const CounterSample& s = trace.counters[i];
    add_value(m, slot, trace, s.dispatch, trace.strings.at(s.counter), s.value);
  }
  return m;
}

CounterMatch match_counter_trace(const Trace& trace, const Trace& pass) {
  CounterMatch m;
  const bool per_process = trace.processes.size() == pass.processes.size();
  if (!per_process)
    m.warnings.push_back(fmt::format("the counter run had {} process(es), the trace run {}: launches are paired "
                                     "across all processes",
                                     pass.processes.size(), trace.processes.size()));
  const Groups target = occurrence_groups(trace, per_process), source = occurrence_groups(pass, per_process);
  std::vector<std::vector<std::size_t>> samples_of(pass.dispatches.size());
  for (std::size_t i = 0; i < pass.counters.size(); ++i)
    if (pass.counters[i].dispatch < samples_of.size()) samples_of[pass.counters[i].dispatch].push_back(i);

  std::map<std::string, std::size_t> slot, unpaired, missing_kernel;
  std::size_t shape_mismatches = 0;
  for (const auto& [key, list] : source) {
    auto it = target.find(key);
    for (std::size_t k = 0; k < list.size(); ++k) {
      const auto& samples = samples_of[list[k]];
      if (samples.empty()) continue;
      ++m.instances;
      if (it == target.end()) {
        ++missing_kernel[key.second];
        continue;
      }
      if (k >= it->second.size()) {
        ++unpaired[key.second];
        continue;
      }
      const Index d = it->second[k];
      if (!same_shape(trace.dispatches[d], pass.dispatches[list[k]])) ++shape_mismatches;
      ++m.matched;
      for (std::size_t s : samples)
        add_value(m, slot, trace, d, pass.strings.at(pass.counters[s].counter), pass.counters[s].value);
    }
  }
  for (const auto& [name, n] : missing_kernel)
    m.warnings.push_back(fmt::format("{} instance(s) of '{}' have counters but the trace run has no such kernel: "
                                     "not stored",
                                     n, name));
  for (const auto& [name, n] : unpaired)
    m.warnings.push_back(fmt::format("'{}' ran {} more time(s) in the counter run than in the trace run: the extra "
                                     "instances were not stored (does the program launch the same kernels each run?)",
                                     name, n));
  if (shape_mismatches)
    m.warnings.push_back(fmt::format("{} paired instance(s) have a grid or block size different from their trace "
                                     "dispatch: the launch-order pairing is probably off",
                                     shape_mismatches));
  return m;
}

std::optional<double> CounterCollection::ms_per_instance() const {
  if (instances == 0) return std::nullopt;
  return wall_ns / 1e6 / static_cast<double>(instances);
}

std::optional<double> CounterCollection::extra_ms_per_instance() const {
  if (instances == 0 || baseline_wall_ns <= 0) return std::nullopt;
  const double extra = wall_ns - baseline_wall_ns * static_cast<double>(application_runs);
  return std::max(0.0, extra) / 1e6 / static_cast<double>(instances);
}

CounterCollection collect_counters(const CounterCollectionOptions& o, const std::vector<std::string>& trace_databases,
                                   double baseline_wall_ns) {
  if (!o.roofline && !o.deep) throw Error(ExitCode::Internal, "collect_counters: nothing requested");
  CounterCollection c;
  c.run_dir = o.run_dir;
  c.baseline_wall_ns = baseline_wall_ns;
  if (o.roofline) c.requested.push_back("roofline");
  if (o.deep) c.requested.push_back("deep");
  rocpd::ReadOptions ro;
  ro.load_api_calls = false;
  ro.lenient = o.lenient;
  Trace trace = rocpd::read_databases(trace_databases, ro);
  CounterMatch m;
  const Agent* agent = profiled_agent(trace, m.warnings);
  if (!agent)
    throw Error(ExitCode::InputEmpty, "the trace run has no kernel dispatch on a GPU agent: nothing to count");
  c.arch = analysis::normalize_arch(agent->name);
  const auto family = analysis::counter_family(c.arch);
  collectors::CounterPassRequest req{o.argv, o.run_dir, o.kernel_filter.value_or(""), o.timeout_s, o.debug};
  req.launches_per_kernel = o.launches_per_kernel;
  c.launches_per_kernel = o.launches_per_kernel;
  if (family != analysis::CounterFamily::Nvidia && o.launches_per_kernel > 0)
    throw Error(ExitCode::Usage, "--counter-launches is for NVIDIA's CUPTI counter pass; rocprofv3 measures every launch");
  if (family == analysis::CounterFamily::Nvidia) {
    c.vendor = "nvidia";
    collect_nvidia(o, req, std::move(trace), c, m);
  } else if (c.arch.rfind("gfx", 0) == 0) {
    c.vendor = "amd";
    const Agent agent_copy = *agent;
    collect_amd(o, req, trace, agent_copy, c, m);
  } else {
    throw Error(ExitCode::Usage, fmt::format("no counter collection for architecture '{}' (neither sm_XX nor gfxNNN)", c.arch));
  }
  c.instances = m.instances;
  c.matched = m.matched;
  c.warnings = std::move(m.warnings);
  for (const auto& db : m.databases) {
    if (db.values.empty()) continue;
    const auto r = rocpd::append_counters(db.database, db.values, db.guid);
    c.values_stored += r.values_written;
    if (std::find(c.databases.begin(), c.databases.end(), db.database) == c.databases.end())
      c.databases.push_back(db.database);
  }
  if (!c.passes.empty() && c.instances == 0)
    c.warnings.push_back(o.kernel_filter ? fmt::format("the counter pass profiled no kernel instance: --kernel '{}' "
                                                       "matched no kernel's demangled name?",
                                                       *o.kernel_filter)
                                         : std::string("the counter pass profiled no kernel instance"));
  else if (c.matched < c.instances)
    c.warnings.insert(c.warnings.begin(),
                      fmt::format("{} of {} kernel instance(s) measured by {} could not be paired with a dispatch of "
                                  "the trace run: their counters are not stored (reasons below)",
                                  c.instances - c.matched, c.instances, c.tool));
  for (const auto& w : c.warnings) log::warn("counters: {}", w);
  return c;
}

nlohmann::json to_json(const CounterCollection& c) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  nlohmann::json att = nlohmann::json::array();
  for (const auto& a : c.att) att.push_back({{"dispatch_id", a.dispatch_id}, {"kernel", a.kernel}, {"deep", analysis::to_json(a.deep)}});
  return {{"vendor", c.vendor},
          {"tool", c.tool},
          {"arch", c.arch},
          {"requested", c.requested},
          {"launches_per_kernel", c.launches_per_kernel ? nlohmann::json(c.launches_per_kernel) : nlohmann::json(nullptr)},
          {"passes", c.passes},
          {"commands", c.commands},
          {"run_dir", c.run_dir},
          {"application_runs", c.application_runs},
          {"instances", c.instances},
          {"matched_instances", c.matched},
          {"values_stored", c.values_stored},
          {"databases", c.databases},
          {"wall_ms", c.wall_ns / 1e6},
          {"baseline_wall_ms", c.baseline_wall_ns / 1e6},
          {"ms_per_instance", opt(c.ms_per_instance())},
          {"extra_ms_per_instance", opt(c.extra_ms_per_instance())},
          {"warnings", c.warnings},
          {"att", att},
          {"att_diagnosis", c.att_diagnosis.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.att_diagnosis)}};
}

}  // namespace rpl::app
