#include "app/profile_counters.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "analysis/amd_counter_analysis.hpp"
#include "analysis/counter_file.hpp"
#include "analysis/counter_pairing.hpp"
#include "analysis/roofline_counters.hpp"
#include "collectors/counter_pass.hpp"
#include "store/rocpd_reader.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/json_optional.hpp"

namespace rpl::app {
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

// What a counter source ran, added to the collection's account.
void record_run(CounterCollection& c, const collectors::CounterPassRun& run) {
  c.commands.push_back(fmt::format("{}", fmt::join(run.command, " ")));
  c.wall_ns += run.process.wall_ns;
  c.application_runs += run.application_runs;
}

// Every sample set of a counter source's run paired with the trace. An instance is one kernel launch,
// whichever of the run's passes measured it.
void match_run(const Trace& trace, const collectors::CounterPassRun& run, CounterMatch& m) {
  bool first = true;
  for (const CounterSamples& samples : run.samples) {
    CounterMatch sm = match_counter_samples(trace, samples);
    if (!samples.run.empty())
      for (auto& w : sm.warnings) w = fmt::format("{}: {}", samples.run, w);
    m.instances = std::max(m.instances, sm.instances);
    m.matched = first ? sm.matched : std::min(m.matched, sm.matched);
    first = false;
    merge(m, std::move(sm));
  }
}

collectors::CounterTool resolve_nvidia_tool(const CounterCollectionOptions& o) {
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
  return tool;
}

void collect_nvidia(const CounterCollectionOptions& o, const collectors::CounterPassRequest& req, const Trace& trace,
                    CounterCollection& c, CounterMatch& m) {
  using collectors::CounterTool;
  const CounterTool tool = resolve_nvidia_tool(o);
  c.tool = collectors::to_string(tool);
  // The classifier reads the deep metrics too, so --roofline collects both (one run; the tool groups them
  // into replay passes itself).
  const auto deep = tool == CounterTool::Cupti ? analysis::cupti_deep_metrics(c.arch) : analysis::ncu_deep_metrics(c.arch);
  const auto metrics = o.roofline ? unique_metrics(analysis::ncu_roofline_metrics(c.arch), deep) : deep;
  c.passes.push_back(metrics);
  const auto run = tool == CounterTool::Cupti ? collectors::run_cupti_counter_pass(req, metrics)
                                              : collectors::run_ncu_pass(req, metrics);
  record_run(c, run);
  match_run(trace, run, m);
}

void collect_amd_roofline(const collectors::CounterPassRequest& req, const Trace& trace, CounterCollection& c,
                          CounterMatch& m) {
  const auto set = analysis::roofline_counter_set(c.arch);
  if (set.quantities.empty()) {
    m.warnings.push_back("no roofline counter pass: " + set.unavailable_reason);
    return;
  }
  c.passes = analysis::split_amd_passes(set);
  const auto run = collectors::run_rocprof_pmc_pass(req, analysis::rocprofv3_pmc_input(c.arch));
  record_run(c, run);
  match_run(trace, run, m);
}

// The thread trace of the first dispatch of each kernel, analysed one dispatch at a time, and the counters of
// the AMD deep-analysis formulas (hit rates, VALU / MFMA and thread utilisation; amd_counter_analysis.hpp),
// stored with the trace like any counter pass.
void collect_amd_deep(collectors::CounterPassRequest req, const Trace& trace, const Agent& agent, CounterCollection& c,
                      CounterMatch& m) {
  if (const auto names = analysis::amd_deep_counters(c.arch); !names.empty()) {
    analysis::CounterFile file;
    file.path = "the deep-analysis counters";
    file.passes.push_back({0, names});
    const auto passes = analysis::plan_amd_counter_passes(file);
    c.passes.insert(c.passes.end(), passes.begin(), passes.end());
    collectors::CounterPassRequest counters_req = req;
    counters_req.run_dir = req.run_dir + "/deep-counters";
    const auto run = collectors::run_rocprof_pmc_pass(counters_req, analysis::rocprofv3_input_text(passes, file.path));
    record_run(c, run);
    match_run(trace, run, m);
  }
  collectors::RocprofAttPass att;
  try {
    att = collectors::run_rocprof_att_pass(req);
  } catch (const Error& e) {
    // ROCm 6.x: no thread trace to import; the deep counters above still stand.
    if (e.code() != ExitCode::Unsupported) throw;
    c.att_diagnosis = e.what();
    m.warnings.push_back(std::string("no thread trace: ") + e.what());
    return;
  }
  record_run(c, att);
  c.att_diagnosis = att.diagnosis;
  m.warnings.insert(m.warnings.end(), att.warnings.begin(), att.warnings.end());
  const uint32_t max_waves = agent.simd_per_cu * agent.max_waves_per_simd;
  for (const auto& out : att.outputs)
    c.att.push_back({out.dispatch_id, out.kernel, analysis::analyze_att_dispatch(collectors::read_att_dispatch(out), max_waves)});
}

// The counter file's values per (kernel, counter), over every instance the tool measured.
void add_file_totals(const collectors::CounterPassRun& run, CounterCollection& c) {
  std::map<std::pair<std::string, std::string>, std::size_t> slot;
  for (const CounterSamples& samples : run.samples)
    for (const CounterInstance& inst : samples.instances) {
      if (!inst.measured) continue;
      for (const auto& [index, value] : inst.values) {
        const std::string& counter = samples.counters[index];
        auto [it, fresh] = slot.try_emplace({inst.kernel, counter}, c.file_totals.size());
        if (fresh) c.file_totals.push_back({inst.kernel, counter, 0, 0});
        ++c.file_totals[it->second].instances;
        c.file_totals[it->second].sum += value;
      }
    }
}

// --counters FILE: its own pass, in its own folder (the roofline pass may share the run folder).
void collect_file(const CounterCollectionOptions& o, collectors::CounterPassRequest req, const Trace& trace,
                  CounterCollection& c, CounterMatch& m) {
  const analysis::CounterFile& file = *o.counter_file;
  c.counter_file = file.path;
  req.run_dir = o.run_dir + "/counter-file";
  if (c.vendor == "nvidia") {
    const auto metrics = file.all_counters();
    c.passes.push_back(metrics);
    const auto run = resolve_nvidia_tool(o) == collectors::CounterTool::Cupti
                         ? collectors::run_cupti_counter_pass(req, metrics)
                         : collectors::run_ncu_pass(req, metrics);
    if (c.tool.empty()) c.tool = run.tool;
    record_run(c, run);
    match_run(trace, run, m);
    add_file_totals(run, c);
    return;
  }
  const auto passes = analysis::plan_amd_counter_passes(file);
  if (passes.size() > file.passes.size())
    log::info("{}: {} pmc line(s) split into {} passes to fit the hardware's counters per block", file.path,
              file.passes.size(), passes.size());
  c.passes.insert(c.passes.end(), passes.begin(), passes.end());
  const auto run = collectors::run_rocprof_pmc_pass(req, analysis::rocprofv3_input_text(passes, file.path));
  record_run(c, run);
  match_run(trace, run, m);
  add_file_totals(run, c);
}

// The paired values into the trace run's databases, each beside its dispatches.
void store_values(const CounterMatch& m, CounterCollection& c) {
  for (const auto& db : m.databases) {
    if (db.values.empty()) continue;
    const auto r = rocpd::append_counters(db.database, db.values, db.guid);
    c.values_stored += r.values_written;
    if (std::find(c.databases.begin(), c.databases.end(), db.database) == c.databases.end())
      c.databases.push_back(db.database);
  }
}

// Nothing measured, or how many instances went unpaired (first; the pairing's reasons follow).
void say_what_was_not_paired(const CounterCollectionOptions& o, CounterCollection& c) {
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
}

}  // namespace

CounterMatch match_counter_samples(const Trace& trace, const CounterSamples& samples) {
  const analysis::CounterPairing pairing = analysis::pair_counter_samples(trace, samples);
  CounterMatch m;
  m.instances = pairing.instances();
  m.matched = pairing.matched_instances;
  m.warnings = pairing.warnings;
  std::map<std::string, std::size_t> slot;
  for (const auto& v : pairing.values) add_value(m, slot, trace, v.dispatch, samples.counters[v.counter], v.value);
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
  if (!o.roofline && !o.deep && !o.counter_file) throw Error(ExitCode::Internal, "collect_counters: nothing requested");
  CounterCollection c;
  c.run_dir = o.run_dir;
  c.baseline_wall_ns = baseline_wall_ns;
  if (o.roofline) c.requested.push_back("roofline");
  if (o.deep) c.requested.push_back("deep");
  if (o.counter_file) c.requested.push_back("file");
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
  req.lenient = o.lenient;
  c.launches_per_kernel = o.launches_per_kernel;
  if (family != analysis::CounterFamily::Nvidia && o.launches_per_kernel > 0)
    throw Error(ExitCode::Usage, "--counter-launches is for NVIDIA's CUPTI counter pass; rocprofv3 measures every launch");
  if (family == analysis::CounterFamily::Nvidia) {
    c.vendor = "nvidia";
    if (o.roofline || o.deep) collect_nvidia(o, req, trace, c, m);
    if (o.counter_file) collect_file(o, req, trace, c, m);
  } else if (c.arch.rfind("gfx", 0) == 0) {
    c.vendor = "amd";
    c.tool = "rocprofv3";
    if (o.roofline) collect_amd_roofline(req, trace, c, m);
    if (o.deep) collect_amd_deep(req, trace, *agent, c, m);
    if (o.counter_file) collect_file(o, req, trace, c, m);
  } else {
    throw Error(ExitCode::Usage, fmt::format("no counter collection for architecture '{}' (neither sm_XX nor gfxNNN)", c.arch));
  }
  c.instances = m.instances;
  c.matched = m.matched;
  c.warnings = std::move(m.warnings);
  store_values(m, c);
  say_what_was_not_paired(o, c);
  for (const auto& w : c.warnings) log::warn("counters: {}", w);
  return c;
}

nlohmann::json to_json(const CounterCollection& c) {
  nlohmann::json att = nlohmann::json::array();
  for (const auto& a : c.att) att.push_back({{"dispatch_id", a.dispatch_id}, {"kernel", a.kernel}, {"deep", analysis::to_json(a.deep)}});
  nlohmann::json file_totals = nlohmann::json::array();
  for (const auto& t : c.file_totals)
    file_totals.push_back({{"kernel", t.kernel},
                           {"counter", t.counter},
                           {"instances", t.instances},
                           {"sum", t.sum},
                           {"mean", t.instances ? t.sum / static_cast<double>(t.instances) : 0.0}});
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
          {"ms_per_instance", json_or_null(c.ms_per_instance())},
          {"extra_ms_per_instance", json_or_null(c.extra_ms_per_instance())},
          {"warnings", c.warnings},
          {"att", att},
          {"att_diagnosis", c.att_diagnosis.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.att_diagnosis)},
          {"counter_file", c.counter_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.counter_file)},
          {"file_totals", file_totals}};
}

}  // namespace rpl::app
