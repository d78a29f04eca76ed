// In-process quality benchmark of the autotuner's search: runs autotune::tune() over an exhaustively measured
// space (bench/autotune/spaces/*.json format, uncompressed; read from a path or "-" for stdin) for a range of
// seeds and prints, per seed, the ratio best found / true optimum as one JSON line, then a summary line.
// Same search and ratios as the CLI path of bench/autotune/replay_bench.py (which runs every configuration as a
// process), at a fraction of the time, so search changes can be compared over many spaces and seeds.
//
// Each seed's line also carries its curve: "improvements", [[t, ratio], ...], the count t of configurations
// measured so far (invalid ones included, as Kernel Tuner counts max_fevals) whenever the best ratio improved,
// and "evaluations", the count at the end.
//
// --evaluations-as-budget: the run also stops after as many configurations evaluated, failed ones included, as
// the budget has valid ones (the product's --max-evaluations B with --budget B), so the search plans against the
// limit issue 30's report cuts every strategy at (Kernel Tuner's max_fevals = B).
//
// Usage: autotune_quality SPACE.json|- [--seeds N] [--first-seed S] [--budget 2%|N] [--strategy model|random]
//        [--evaluations-as-budget] [--trace SEED]
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <unordered_map>

#include "autotune/simulation.hpp"
#include "autotune/tuner.hpp"

namespace {

using namespace rpl::autotune;

struct Settings {
  std::string path;
  int seeds = 25, first_seed = 0, trace = -1;
  std::string budget_text = "2%", strategy = "model";
  bool evaluations_as_budget = false;
};

int run(const Settings& s) {
  const std::string& path = s.path;
  const int seeds = s.seeds, first_seed = s.first_seed, trace = s.trace;
  const std::string &budget_text = s.budget_text, &strategy = s.strategy;
  nlohmann::ordered_json doc;
  if (path == "-") {
    doc = nlohmann::ordered_json::parse(std::cin);
  } else {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "autotune_quality: cannot read " << path << "\n";
      return 2;
    }
    doc = nlohmann::ordered_json::parse(in);
  }
  const auto space = SearchSpace::from_json(doc["space"], path);
  // The measured table answers every configuration (the product's simulation evaluator, src/autotune/simulation).
  std::unordered_map<std::string, Outcome> rows;
  std::size_t unmatched = 0;
  for (const auto& r : doc["results"]) {
    std::vector<double> values;
    for (const auto& [name, _] : doc["space"]["parameters"].items()) values.push_back(r[name].get<double>());
    const auto index = space.find(values);
    if (index == SearchSpace::npos) {
      ++unmatched;
      continue;
    }
    const double ms = r["valid"].get<bool>() ? r["time_ms"].get<double>() : -1;
    rows[space.key(space.config(index))] =
        ms > 0 ? Outcome{true, ms, ""} : Outcome{false, 0, "invalid in the measured table"};
  }
  TableEvaluator table(std::move(rows), {{"kind", "measured table"}});
  const std::size_t valid = table.valid();
  if (unmatched != 0 || valid == 0) {
    std::cerr << "autotune_quality: " << path << ": " << unmatched << " measured rows outside the space, " << valid
              << " valid\n";
    return 2;
  }
  const double optimum = *table.optimum();
  std::vector<double> ratios;
  for (int seed = first_seed; seed < first_seed + seeds; ++seed) {
    TuneOptions options;
    options.seed = static_cast<std::uint64_t>(seed);
    options.strategy = strategy == "random" ? Strategy::Random : Strategy::Model;
    options.budget = parse_budget(budget_text, valid);
    if (s.evaluations_as_budget) options.max_evaluations = options.budget.configurations;
    const auto result = tune(space, table, nullptr, nullptr, options);
    const double ratio = result.measurements[*result.best].outcome.objective / optimum;
    ratios.push_back(ratio);
    if (seed == trace)
      for (const auto& m : result.measurements)
        std::cerr << m.sequence << " " << m.phase << " " << space.key(space.config(m.config)) << " "
                  << (m.outcome.valid ? m.outcome.objective / optimum : -1.0) << "\n";
    nlohmann::json improvements = nlohmann::json::array();
    double best = std::numeric_limits<double>::infinity();
    for (const auto& m : result.measurements)
      if (m.outcome.valid && m.outcome.objective / optimum < best) {
        best = m.outcome.objective / optimum;
        improvements.push_back({m.sequence + 1, best});
      }
    std::cout << nlohmann::json{{"seed", seed}, {"ratio", ratio}, {"valid_measured", result.valid},
                                {"invalid_measured", result.invalid}, {"evaluations", result.measurements.size()},
                                {"improvements", improvements}}
                     .dump()
              << std::endl;
  }
  auto sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  const auto within = [&](double f) { return std::count_if(sorted.begin(), sorted.end(), [&](double x) { return x <= f; }); };
  std::cout << nlohmann::json{{"summary", true},
                              {"valid_configurations", valid},
                              {"median", sorted[sorted.size() / 2]},
                              {"worst", sorted.back()},
                              {"within_5pct", within(1.05)},
                              {"within_10pct", within(1.10)},
                              {"seeds", seeds}}
                   .dump()
            << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"autotune search quality over a measured space"};
  Settings s;
  app.add_option("space", s.path, "measured space JSON (or - for stdin)")->required();
  app.add_option("--seeds", s.seeds)->check(CLI::Range(1, 100000));
  app.add_option("--first-seed", s.first_seed);
  app.add_option("--budget", s.budget_text);
  app.add_option("--trace", s.trace, "print this seed's measurements (sequence, phase, configuration, ratio) to stderr");
  app.add_option("--strategy", s.strategy)->check(CLI::IsMember({"model", "random"}));
  app.add_flag("--evaluations-as-budget", s.evaluations_as_budget,
               "stop after as many configurations evaluated (failed ones included) as the budget has valid ones");
  CLI11_PARSE(app, argc, argv);
  // A space file that does not parse, or rows that do not fit its space, end the run with one message.
  try {
    return run(s);
  } catch (const std::exception& e) {
    std::cerr << "autotune_quality: " << s.path << ": " << e.what() << "\n";
    return 2;
  }
}
