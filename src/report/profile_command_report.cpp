// profile.json and the terminal summary of `profile`: statistics across runs on top of the
// representative run's analysis.
#include <fmt/format.h>

#include "report/analyze_report.hpp"
#include "rpl/version.hpp"

namespace rpl::report {
namespace {

nlohmann::json runs_json(const app::ProfileResults& p) {
  nlohmann::json per_run = nlohmann::json::array();
  for (const auto& r : p.runs)
    per_run.push_back({{"run", r.index},
                       {"runtime_ns", r.runtime_ns},
                       {"wall_ns", r.process.wall_ns},
                       {"exit_code", r.process.exit_code},
                       {"signal", r.process.signal},
                       {"databases", r.databases},
                       {"stdout_file", r.stdout_file},
                       {"stderr_file", r.stderr_file}});
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : p.kernels_across_runs)
    kernels.push_back({{"name", k.name}, {"total_per_run", durations_json(k.total_per_run)}});
  return {{"count", p.runs.size()},
          {"platform", p.platform},
          {"collector", p.collector},
          {"command", p.command},
          {"representative_run", p.runs[p.representative_run].index},
          {"runtime", durations_json(p.runtime_across_runs)},
          {"per_run", per_run},
          {"kernels", kernels}};
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
  return doc;
}

std::string profile_terminal_summary(const app::ProfileResults& p, const ReportOptions& options) {
  const auto& s = p.runtime_across_runs;
  std::string out = fmt::format(
      "{} runs ({}{}): runtime mean {:.3f} ms, median {:.3f} ms, CV {:.3f} ({})\n", p.runs.size(), p.mode,
      p.mode == "trace" ? ", " + p.collector : std::string(), s.mean_ns / 1e6, s.median_ns / 1e6, s.cv,
      analysis::to_string(s.stability));
  if (p.mode == "trace") {
    out += fmt::format("  runtime = SUM of kernel time per run; details below are from run {} (the median)\n",
                       p.runs[p.representative_run].index);
    for (std::size_t i = 0; i < p.kernels_across_runs.size() && i < options.top; ++i) {
      const auto& k = p.kernels_across_runs[i];
      out += fmt::format("  {:<50.50} mean {:>10.3f} ms/run  CV {:.3f} ({})\n", k.name, k.total_per_run.mean_ns / 1e6,
                         k.total_per_run.cv, analysis::to_string(k.total_per_run.stability));
    }
    if (p.counters) {
      const auto& c = *p.counters;
      // Counter multiplexing: how many times the application ran to collect every requested counter.
      out += fmt::format("  counters ({}, {}): {} pass(es), {} application run(s){}\n", c.tool, c.arch, c.passes.size(),
                         c.application_runs, c.counter_file.empty() ? std::string() : "; file " + c.counter_file);
      for (std::size_t i = 0; i < c.file_totals.size() && i < options.top; ++i) {
        const auto& t = c.file_totals[i];
        out += fmt::format("    {:<40.40} {:<44} mean {:.6g} over {} instance(s)\n", t.kernel, t.counter,
                           t.sum / static_cast<double>(t.instances), t.instances);
      }
      if (c.file_totals.size() > options.top)
        out += fmt::format("    ... {} more (profile.json counters.file_totals)\n", c.file_totals.size() - options.top);
    }
    out += "\n" + terminal_summary(*p.analysis, options);
  } else {
    out += "  runtime = whole-process wall time (no profiler)\n";
  }
  return out;
}

}  // namespace rpl::report
