// rocm-perf autotune --space FILE --cmd-template TEMPLATE [options]: find the best configuration of a
// kernel's tuning parameters while measuring only a budget of them (src/autotune).
#include <fmt/core.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "autotune/cache.hpp"
#include "autotune/evaluator.hpp"
#include "autotune/replay_evaluator.hpp"
#include "autotune/seed_summary.hpp"
#include "autotune/simulation.hpp"
#include "autotune/space.hpp"
#include "autotune/tuner.hpp"
#include "cli/commands.hpp"
#include "support/atomic_file.hpp"
#include "support/errors.hpp"
#include "support/log.hpp"
#include "support/ordered_parallel.hpp"
#include "support/progress.hpp"

namespace rpl::cli {
namespace {

struct AutotuneArgs {
  std::string space_file;
  std::string cmd_template;
  std::string objective = "kernel-time";
  std::optional<std::string> objective_regex;
  std::optional<std::string> kernel_regex;
  unsigned runs = 1;
  std::string budget = "10%";
  bool budget_given = false;
  std::optional<std::int64_t> max_evaluations;  // signed, so that "-3" is refused rather than wrapped
  std::string strategy = "model";
  std::uint64_t seed = 0;
  std::optional<double> seed_fraction;
  std::optional<std::string> cache_file;
  std::optional<std::string> import_cache;
  std::optional<std::string> export_cache;
  std::optional<std::string> simulate;  // a Kernel Tuner cache answers every configuration; nothing runs
  std::optional<std::string> simulate_objective;  // a column of the cache's entries (default: its objective)
  std::optional<std::string> simulate_direction;  // min or max (default: Kernel Tuner's for known objectives)
  std::optional<unsigned> seeds;                  // --simulate: this many runs, seeds --seed onwards, summed up
  std::string jobs = "1";                         // --simulate --seeds: runs side by side (parse_jobs)
  std::string output_dir = "rocm-perf-autotune";
  double timeout_s = 600;
  // Capture-dir mode.
  std::optional<std::string> capture_dir;
  std::optional<std::string> kernel_source;
  std::optional<std::string> compile_template;
  unsigned replay_iterations = 20;
  double tolerance = 1e-3;
  CommonOptions common;
};

std::unique_ptr<autotune::Evaluator> make_evaluator(const AutotuneArgs& a, const autotune::SearchSpace& space) {
  autotune::CommandOptions co{a.output_dir, a.timeout_s};
  if (a.capture_dir) {
    if (!a.cmd_template.empty()) throw Error(ExitCode::Usage, "--capture-dir replaces --cmd-template; give one of them");
    if (!a.kernel_source || !a.compile_template)
      throw Error(ExitCode::Usage, "--capture-dir needs --kernel-source FILE and --compile-template TEMPLATE");
    autotune::ReplayEvaluatorOptions ro{*a.capture_dir, *a.kernel_source, a.output_dir, a.replay_iterations,
                                        a.tolerance, a.timeout_s};
    return std::make_unique<autotune::ReplayEvaluator>(*a.compile_template, space, ro);
  }
  if (a.cmd_template.empty()) throw Error(ExitCode::Usage, "--cmd-template TEMPLATE (or --capture-dir) is required");
  autotune::CommandTemplate command(a.cmd_template, space, "--cmd-template");
  for (const auto& name : command.unused(space))
    log::warn("parameter {} does not appear in --cmd-template; its values will not change the command", name);
  if (a.objective == "stdout") {
    if (!a.objective_regex) throw Error(ExitCode::Usage, "--objective stdout needs --objective-regex REGEX");
    return std::make_unique<autotune::StdoutEvaluator>(std::move(command), *a.objective_regex, co);
  }
  if (a.objective == "kernel-time") {
    if (a.objective_regex) throw Error(ExitCode::Usage, "--objective-regex applies only to --objective stdout");
    return std::make_unique<autotune::KernelTimeEvaluator>(std::move(command), a.kernel_regex, a.runs, co);
  }
  throw Error(ExitCode::Usage, fmt::format("--objective \"{}\": expected kernel-time or stdout", a.objective));
}

std::string max_evaluations_note(const autotune::TuneOptions& options) {
  return options.max_evaluations ? fmt::format(", at most {} evaluations", *options.max_evaluations) : std::string();
}

autotune::TuneOptions tune_options(const AutotuneArgs& a, const autotune::SearchSpace& space) {
  autotune::TuneOptions options;
  options.strategy = autotune::parse_strategy(a.strategy);
  // --max-evaluations alone: that many evaluations, whatever share of them runs (the valid budget never binds first).
  options.budget = autotune::parse_budget(a.max_evaluations && !a.budget_given ? std::to_string(*a.max_evaluations) : a.budget,
                                          space.size());
  if (a.max_evaluations) options.max_evaluations = static_cast<std::size_t>(*a.max_evaluations);
  options.seed = a.seed;
  if (a.seed_fraction) {
    if (options.strategy != autotune::Strategy::Model)
      throw Error(ExitCode::Usage, fmt::format("--seed-fraction is the model strategy's seed phase: it does not apply "
                                               "to --strategy {}", a.strategy));
    options.seed_fraction = *a.seed_fraction;
    options.max_seed.reset();  // the share the user asked for, without the default's cap
  }
  options.show_progress = show_progress(a.common);
  return options;
}

// Writes `doc` as `file` in the output directory (atomically) and prints it with --json, else `summary` unless
// --quiet.
void write_document(const AutotuneArgs& a, const nlohmann::ordered_json& doc, const std::string& file,
                    const std::string& summary) {
  const std::string path = (std::filesystem::path(a.output_dir) / file).string();
  const std::string text = doc.dump(1) + "\n";
  write_file_atomically(path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
  if (a.common.json) fmt::print("{}", text);
  else if (!a.common.quiet) fmt::print("{}", summary);
  if (doc.contains("warning")) log::warn("{}: cross-validated R^2 below {}", doc["warning"].get<std::string>(),
                                         autotune::kLowConfidenceR2);
  log::info("wrote {}", path);
  if (std::fflush(stdout) != 0) throw Error(ExitCode::OutputFailed, "cannot write to standard output");
}

// Writes autotune.json (and prints it or the summary) as every mode does.
void write_result(const AutotuneArgs& a, const nlohmann::ordered_json& doc) {
  write_document(a, doc, "autotune.json", autotune::result_summary(doc));
}

// --simulate CACHE --seeds N: N runs (seeds --seed onwards) summed up as issue 30's report sums up a strategy;
// writes simulation_seeds.json (schemas/autotune-seeds.schema.json).
int run_simulation_seeds(const AutotuneArgs& a, autotune::Simulation& sim, autotune::TuneOptions options) {
  const double optimum = *sim.evaluator.optimum();
  std::vector<double> ratios = sim.evaluator.valid_objectives();
  for (double& r : ratios) r /= optimum;
  Progress progress(show_progress(a.common));
  options.show_progress = false;
  std::vector<autotune::SeedRun> runs;
  nlohmann::ordered_json run_docs = nlohmann::ordered_json::array();
  // Each run is its seed's alone (the table is only read), so --jobs runs them side by side and the document is
  // the same for every N.
  using Run = std::pair<autotune::SeedRun, std::string>;
  ordered_parallel<Run>(
      *a.seeds, resolve_jobs(parse_jobs(a.jobs)),
      [&](std::size_t i) {
        autotune::TuneOptions o = options;
        o.seed = a.seed + i;
        const autotune::TuneResult result = autotune::tune(sim.space, sim.evaluator, nullptr, nullptr, o);
        return Run{autotune::seed_run(result, optimum, o.seed), result.stop_reason};
      },
      [&](std::size_t i, Run run) {
        progress.update(fmt::format("seed {} done ({} of {})", run.first.seed, i + 1, *a.seeds));
        nlohmann::ordered_json improvements = nlohmann::ordered_json::array();
        for (const auto& [t, r] : run.first.improvements) improvements.push_back({t, r});
        run_docs.push_back({{"seed", run.first.seed}, {"evaluations", run.first.evaluations},
                            {"best_to_optimum", run.first.best_ratio}, {"stop_reason", run.second},
                            {"improvements", improvements}});
        runs.push_back(std::move(run.first));
      });
  progress.done();
  std::size_t limit = options.max_evaluations.value_or(0);
  if (!options.max_evaluations)
    for (const auto& r : runs) limit = std::max(limit, r.evaluations);
  const autotune::SeedSummary s = autotune::summarize_seeds(runs, ratios, sim.space.size(), limit);
  nlohmann::ordered_json doc;
  doc["schema_version"] = 1;
  doc["tool"] = "rocm-perf autotune --simulate --seeds";
  doc["cache"] = *a.simulate;
  doc["objective"] = {{"name", sim.objective.name}, {"higher_is_better", sim.objective.higher_is_better}};
  doc["space"] = {{"configurations", sim.space.size()}, {"valid", ratios.size()}};
  doc["strategy"] = a.strategy;
  doc["budget"] = {{"requested", options.budget.requested}, {"configurations", options.budget.configurations}};
  doc["max_evaluations"] = options.max_evaluations ? nlohmann::ordered_json(*options.max_evaluations) : nullptr;
  doc["seeds"] = {{"first", a.seed}, {"count", *a.seeds}};
  doc["score_evaluations"] = limit;
  doc["summary"] = {{"median", s.median},         {"p90", s.p90},
                    {"within_5pct", s.within_5pct}, {"within_10pct", s.within_10pct},
                    {"score", s.score},           {"random_expected_best", s.random_expected_best}};
  doc["runs"] = run_docs;
  write_document(a, doc, "simulation_seeds.json",
                 fmt::format("{} seeds of --strategy {} on {}: best/optimum median {:.3f}, 90th percentile {:.3f}; "
                             "within 5% {} and within 10% {} of {}; methodology score {:.3f} over {} evaluations "
                             "(random search 0; its expected best after them {:.3f})\n",
                             *a.seeds, a.strategy, *a.simulate, s.median, s.p90, s.within_5pct, s.within_10pct,
                             *a.seeds, s.score, limit, s.random_expected_best));
  return 0;
}

// --simulate CACHE: the search against a Kernel Tuner cache, nothing run; the result also says how far the
// best found is from the cache's optimum.
int run_simulation(const AutotuneArgs& a) {
  if (!a.cmd_template.empty() || a.capture_dir)
    throw Error(ExitCode::Usage, "--simulate runs nothing: give it without --cmd-template or --capture-dir");
  if (a.cache_file || a.import_cache || a.export_cache)
    throw Error(ExitCode::Usage, "--simulate takes every measurement from its cache: give it without --cache, "
                                 "--import-cache or --export-cache");
  const std::optional<std::string> space_file =
      a.space_file.empty() ? std::nullopt : std::optional<std::string>(a.space_file);
  const std::optional<bool> higher_is_better =
      a.simulate_direction ? std::optional<bool>(*a.simulate_direction == "max") : std::nullopt;
  parse_jobs(a.jobs);  // a wrong value is refused before any work
  autotune::Simulation sim = autotune::load_simulation(*a.simulate, space_file, a.simulate_objective, higher_is_better);
  if (sim.skipped) log::info("--simulate {}: {} entries outside the space skipped", *a.simulate, sim.skipped);
  if (sim.not_positive)
    log::warn("--simulate {}: {} configuration(s) have {} zero or below: taken as failed configurations (the search "
              "needs an objective above zero: it models its logarithm and compares configurations by ratios)",
              *a.simulate, sim.not_positive, sim.objective.name);
  const autotune::TuneOptions options = tune_options(a, sim.space);
  log::info("autotune --simulate: {} configurations ({} valid in the cache), strategy {}, budget {} ({} configurations){}",
            sim.space.size(), sim.evaluator.valid(), a.strategy, options.budget.requested, options.budget.configurations,
            max_evaluations_note(options));
  std::filesystem::create_directories(a.output_dir);
  if (a.seeds) return run_simulation_seeds(a, sim, options);
  const autotune::TuneResult result = autotune::tune(sim.space, sim.evaluator, nullptr, nullptr, options);
  nlohmann::ordered_json doc =
      autotune::result_document(sim.space, space_file.value_or(*a.simulate), sim.evaluator, options, result);
  const double optimum = *sim.evaluator.optimum();
  const double best = result.measurements[*result.best].outcome.objective;
  // The search minimizes; where higher is better it saw reciprocals, and the values are given back as the
  // cache holds them.
  const auto as_cached = [&](double v) { return sim.objective.higher_is_better ? 1.0 / v : v; };
  doc["simulation"] = {{"cache", *a.simulate},
                       {"valid_in_cache", sim.evaluator.valid()},
                       {"optimum", optimum},
                       {"best_to_optimum", best / optimum},
                       {"objective", sim.objective.name},
                       {"higher_is_better", sim.objective.higher_is_better},
                       {"best_value", as_cached(best)},
                       {"optimum_value", as_cached(optimum)}};
  write_result(a, doc);
  return 0;
}

int run_autotune_command(const AutotuneArgs& a) {
  set_log_level(a.common);
  if (!a.seeds && a.jobs != "1") throw Error(ExitCode::Usage, "--jobs goes with --simulate CACHE --seeds N");
  if (a.simulate) return run_simulation(a);
  if (a.simulate_objective || a.simulate_direction || a.seeds)
    throw Error(ExitCode::Usage, "--simulate-objective, --simulate-direction and --seeds go with --simulate CACHE");
  if (a.space_file.empty()) throw Error(ExitCode::Usage, "--space FILE is required (or --simulate CACHE)");
  const autotune::SearchSpace space = autotune::SearchSpace::load(a.space_file);
  const autotune::TuneOptions options = tune_options(a, space);
  std::unique_ptr<autotune::Evaluator> evaluator = make_evaluator(a, space);

  std::filesystem::create_directories(a.output_dir);
  std::unordered_map<std::string, autotune::CachedMeasurement> imported;
  if (a.import_cache) {
    std::size_t skipped = 0;
    imported = autotune::import_kernel_tuner_cache(*a.import_cache, space, &skipped);
    log::info("imported {} measurements from {}{}", imported.size(), *a.import_cache,
              skipped ? fmt::format(" ({} outside the space skipped)", skipped) : std::string());
  }
  std::optional<autotune::Cache> cache;
  if (a.cache_file) cache.emplace(*a.cache_file, space, evaluator->describe());
  if (cache && cache->size()) log::info("cache {}: {} measurements already there", cache->path(), cache->size());

  log::info("autotune: {} valid configurations (of {:.0f}), strategy {}, budget {} ({} configurations){}", space.size(),
            space.cartesian_size(), a.strategy, options.budget.requested, options.budget.configurations,
            max_evaluations_note(options));
  const autotune::TuneResult result =
      autotune::tune(space, *evaluator, cache ? &*cache : nullptr, a.import_cache ? &imported : nullptr, options);
  const nlohmann::ordered_json doc = autotune::result_document(space, a.space_file, *evaluator, options, result);
  if (a.export_cache) {
    std::vector<autotune::ExportRow> rows;
    for (const auto& m : result.measurements) rows.push_back({m.config, m.outcome});
    autotune::export_kernel_tuner_cache(*a.export_cache, space, rows, a.cmd_template);
  }
  write_result(a, doc);
  return 0;
}

}  // namespace

Action register_autotune(CLI::App& app) {
  auto args = std::make_shared<AutotuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "autotune", "Find the best configuration of a kernel's tuning parameters, measuring only a budget of them "
                  "(seed sample, then a surrogate model predicts and the predicted best are confirmed)");
  cmd->add_option("--space", args->space_file, "search space JSON: {\"parameters\": {NAME: [values]}, "
                                               "\"restrictions\": [EXPR]} (schemas/autotune-space.schema.json); "
                                               "with --simulate, optional (default: the cache's configurations)");
  cmd->add_option("--cmd-template", args->cmd_template, "command with {NAME} placeholders, run once per "
                                                        "configuration (no shell)");
  cmd->add_option("--objective", args->objective, "kernel-time (sum of kernel durations under the profiler) or "
                                                  "stdout (a number the program prints)")
      ->capture_default_str();
  cmd->add_option("--objective-regex", args->objective_regex, "--objective stdout: regex whose first group is the "
                                                              "objective (smaller is better)");
  cmd->add_option("--kernel", args->kernel_regex, "--objective kernel-time: count only kernels matching this regex");
  cmd->add_option("--runs", args->runs, "--objective kernel-time: runs per configuration (median)")
      ->capture_default_str()->check(CLI::Range(1u, 1000u));
  cmd->add_option("--budget", args->budget, "configurations to measure successfully: N, or P% of the valid ones")
      ->capture_default_str()
      ->each([args](const std::string&) { args->budget_given = true; });
  cmd->add_option("--max-evaluations", args->max_evaluations,
                  "N: stop after N configurations evaluated, failed ones included (Kernel Tuner's max_fevals; "
                  "alone, it is the budget: N evaluations; with --budget, whichever comes first)")
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--strategy", args->strategy, "model, random or exhaustive")->capture_default_str();
  cmd->add_option("--seed", args->seed, "random seed; the same seed gives the same search")->capture_default_str();
  cmd->add_option("--seed-fraction", args->seed_fraction,
                  "F in (0, 1]: --strategy model measures this share of the budget in its space-filling seed phase "
                  "before the model guides the search (default: 20% of the budget, at most 20 and at least 10 "
                  "configurations; given, it is taken without the cap of 20); raise it when autotune.json warns "
                  "low_model_confidence")
      ->check(unit_fraction());
  cmd->add_option("--cache", args->cache_file, "append every measurement to this file at once; a rerun with it "
                                               "measures nothing twice");
  cmd->add_option("--import-cache", args->import_cache, "take measurements from a Kernel Tuner cache file");
  cmd->add_option("--export-cache", args->export_cache, "write the measurements as a Kernel Tuner cache file");
  cmd->add_option("--simulate", args->simulate, "tune against this Kernel Tuner cache (.json or .json.gz) without "
                                                "running anything: every configuration's measurement comes from it");
  cmd->add_option("--simulate-objective", args->simulate_objective,
                  "--simulate: tune on this column of the cache's entries (default: the cache's objective, or "
                  "its first)");
  cmd->add_option("--simulate-direction", args->simulate_direction,
                  "--simulate: min or max, whether lower or higher is better (default: Kernel Tuner's for its "
                  "known objectives: time lower, GFLOP/s higher...)")
      ->check(CLI::IsMember({"min", "max"}));
  cmd->add_option("--seeds", args->seeds,
                  "--simulate: N runs, seeds --seed onwards, summed up (median, 90th percentile, runs within 5% and "
                  "10%, methodology score) in simulation_seeds.json")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--jobs,-j", args->jobs,
                  "--simulate --seeds: N runs side by side (0: as many as there are cores); the output is the same "
                  "for every N")
      ->type_name("UINT")
      ->default_str("1");
  cmd->add_option("--capture-dir", args->capture_dir, "tune the kernel captured there (rocm-perf capture): each "
                                                      "configuration compiled and timed by replay on the real inputs");
  cmd->add_option("--kernel-source", args->kernel_source, "capture-dir mode: the kernel's source ({SOURCE})");
  cmd->add_option("--compile-template", args->compile_template,
                  "capture-dir mode: compiler command with {NAME} placeholders, {OUT} (code object) and {SOURCE}");
  cmd->add_option("--replay-iterations", args->replay_iterations, "capture-dir mode: replayed launches per "
                                                                  "configuration (median)")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  cmd->add_option("--tolerance", args->tolerance, "capture-dir mode: relative tolerance of the result check "
                                                  "against the original kernel (0: bit-exact)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", args->timeout_s, "seconds before one configuration's run is killed (0: none)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("-o,--output-dir", args->output_dir, "where autotune.json and failed runs' output go")
      ->capture_default_str();
  add_common_flags(cmd, args->common, {"print autotune.json on stdout, nothing else", "no summary, no progress",
                                       "verbose logs on stderr"});
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return run_autotune_command(*args);
  };
}

}  // namespace rpl::cli
