// profile.json and the terminal summary of `profile`: statistics across runs on top of the
// representative run's analysis.
#include <fmt/format.h>

#include "report/analyze_report.hpp"
#include "support/terminal_text.hpp"
#include "report/pc_sampling_report.hpp"
#include "rpl/version.hpp"

namespace rpl::report {
namespace {

nlohmann::json device_json(const analysis::DeviceMetricSummary& d) {
  nlohmann::json j = {{"device", d.device},
                      {"name", d.device_name},
                      {"source", d.source},
                      {"samples", d.samples},
                      {"monitored_s", d.monitored_s}};
  auto put = [&](const char* key, const std::optional<double>& v) {
    if (v) j[key] = *v;
  };
  put("energy_j", d.energy_j);
  if (d.energy_j) j["energy_method"] = d.energy_method;
  put("mean_power_w", d.mean_power_w);
  put("peak_power_w", d.peak_power_w);
  put("peak_memory_used_bytes", d.peak_memory_used_bytes);
  put("mean_sm_clock_mhz", d.mean_sm_clock_mhz);
  put("min_sm_clock_mhz", d.min_sm_clock_mhz);
  put("max_sm_clock_mhz", d.max_sm_clock_mhz);
  put("mean_memory_clock_mhz", d.mean_memory_clock_mhz);
  put("peak_temperature_c", d.peak_temperature_c);
  put("mean_gpu_utilization_pct", d.mean_gpu_utilization_pct);
  return j;
}

nlohmann::json runs_json(const app::ProfileResults& p) {
  nlohmann::json per_run = nlohmann::json::array();
  for (const auto& r : p.runs) {
    per_run.push_back({{"run", r.index},
                       {"runtime_ns", r.runtime_ns},
                       {"wall_ns", r.process.wall_ns},
                       {"exit_code", r.process.exit_code},
                       {"signal", r.process.signal},
                       {"databases", r.databases},
                       {"stdout_file", r.stdout_file},
                       {"stderr_file", r.stderr_file}});
    if (!p.device_monitor.empty()) {
      nlohmann::json devices = nlohmann::json::array();
      for (const auto& d : r.devices) devices.push_back(device_json(d));
      per_run.back()["devices"] = std::move(devices);
      per_run.back()["device_samples"] = r.device_samples;
    }
  }
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels_across_runs)
    kernels.push_back({{"name", k.name}, {"total_per_run", durations_json(k.total_per_run)}});
  nlohmann::json out = {{"count", p.runs.size()},
          {"platform", p.platform},
          {"collector", p.collector},
          {"command", p.command},
          {"representative_run", p.runs[p.representative_run].index},
          {"runtime", durations_json(p.runtime_across_runs)},
          {"per_run", per_run},
          {"kernels", kernels},
          {"reproducibility_warnings", p.run_to_run.warnings}};
  if (!p.device_monitor.empty())
    out["device_monitor"] = {{"source", p.device_monitor}, {"sampling_interval_ms", p.sampling_interval_ms}};
  return out;
}

}  // namespace

nlohmann::json profile_command_document(const app::ProfileResults& p) {
  if (!p.analysis) {
    return {{"schema_version", kSchemaVersion},
            {"tool", {{"name", "rocm-perf"}, {"version", kVersion}}},
            {"mode", "timing-only"},
            {"runtime_ms", p.runtime_across_runs.mean_ns / 1e6},
            {"stability", durations_json(p.runtime_across_runs)},
            {"runs", runs_json(p)}};
  }
  nlohmann::json doc = profile_document(*p.analysis);
  doc["runtime_ms"] = p.runtime_across_runs.mean_ns / 1e6;  // the seeds' runtime: mean over runs
  doc["runs"] = runs_json(p);
  if (p.counters) doc["counters"] = app::to_json(*p.counters);
  if (!p.preset.is_null()) doc["preset"] = p.preset;
  if (p.pc_sampling) doc["pc_sampling"] = pc_sampling_json(*p.pc_sampling);
  if (p.pc_sampling_failure) doc["pc_sampling"] = {{"error", *p.pc_sampling_failure}};
  return doc;
}

std::string profile_terminal_summary(const app::ProfileResults& p, const nlohmann::json& analysis,
                                     const ReportOptions& options) {
  const auto& s = p.runtime_across_runs;
  std::string out = fmt::format(
      "{} runs ({}{}): runtime mean {:.3f} ms, median {:.3f} ms, CV {:.3f} ({})\n", p.runs.size(), p.mode,
      p.mode == "trace" ? ", " + p.collector : std::string(), s.mean_ns / 1e6, s.median_ns / 1e6, s.cv,
      analysis::to_string(s.stability));
  for (const auto& w : p.run_to_run.warnings) out += "  reproducibility: " + w + "\n";
  if (p.run_to_run.unstable()) out += "  unstable between runs: " + analysis::instability_remedy() + "\n";
  for (const auto& d : p.runs[p.representative_run].devices)
    out += fmt::format("  device {} ({}): {} samples over {:.2f} s; energy {}; power mean {} W, peak {} W; peak memory "
                       "used {} MiB\n",
                       d.device, d.device_name, d.samples, d.monitored_s,
                       d.energy_j ? fmt::format("{:.1f} J ({})", *d.energy_j, d.energy_method) : std::string("n/a"),
                       d.mean_power_w ? fmt::format("{:.1f}", *d.mean_power_w) : std::string("n/a"),
                       d.peak_power_w ? fmt::format("{:.1f}", *d.peak_power_w) : std::string("n/a"),
                       d.peak_memory_used_bytes ? fmt::format("{:.0f}", *d.peak_memory_used_bytes / 1048576.0)
                                                : std::string("n/a"));
  if (p.mode == "trace") {
    out += fmt::format("  runtime = SUM of kernel time per run; details below are from run {} (the median)\n",
                       p.runs[p.representative_run].index);
    for (std::size_t i = 0; i < p.kernels_across_runs.size() && i < options.top; ++i) {
      const auto& k = p.kernels_across_runs[i];
      out += fmt::format("  {:>10.3f} ms/run  CV {:.3f} {:<8}  {}\n", k.total_per_run.mean_ns / 1e6, k.total_per_run.cv,
                         analysis::to_string(k.total_per_run.stability),
                         options.names == NameForm::Short ? shorten_middle(one_line(k.name), 44) : one_line(k.name));
    }
    if (p.counters) {
      const auto& c = *p.counters;
      // Counter multiplexing: how many times the application ran to collect every requested counter.
      out += fmt::format("  counters ({}, {}): {} pass(es), {} application run(s){}\n", c.tool, c.arch, c.passes.size(),
                         c.application_runs, c.counter_file.empty() ? std::string() : "; file " + c.counter_file);
      for (std::size_t i = 0; i < c.file_totals.size() && i < options.top; ++i) {
        const auto& t = c.file_totals[i];
        out += fmt::format("    {:<24} mean {:>10.6g} over {:>4} instance(s)  {}\n", one_line(t.counter),
                           t.sum / static_cast<double>(t.instances), t.instances, shorten_middle(one_line(t.kernel), 30));
      }
      if (c.file_totals.size() > options.top)
        out += fmt::format("    ... {} more (profile.json counters.file_totals)\n", c.file_totals.size() - options.top);
    }
    out += "\n" + terminal_summary(*p.analysis, analysis.at("findings"), options);
    if (p.pc_sampling) out += pc_sampling_terminal(p.pc_sampling->kernels, 3, 5);
  } else {
    out += "  runtime = whole-process wall time (no profiler)\n";
  }
  return out;
}

}  // namespace rpl::report
