#pragma once
// The search. `model`: a space-filling seed sample, then rounds of predict (fit the surrogate on every
// valid measurement so far, rank the unmeasured configurations by an optimistic prediction) and confirm
// (measure the best-ranked ones), until the budget of valid measurements is spent. `random` and
// `exhaustive` are the baselines. A configuration is never measured twice: the cache (and an imported
// Kernel Tuner cache) answer first.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/evaluator.hpp"
#include "autotune/space.hpp"

namespace rpl::autotune {

enum class Strategy { Model, Random, Exhaustive };
Strategy parse_strategy(const std::string& text);  // Usage on anything else
const char* strategy_name(Strategy s);

struct Budget {
  std::string requested;  // as given: "50" or "2%"
  std::size_t configurations = 0;
};
// "N" or "P%" (of the valid configurations, rounded up, at least 1; capped at the space's size).
Budget parse_budget(const std::string& text, std::size_t valid_configurations);

// Below this 5-fold cross-validated R² (of the log objective) the result carries
// "warning": "low_model_confidence".
constexpr double kLowConfidenceR2 = 0.5;
// The seeds' "seed phase": 20% of the budget by default, at most kDefaultMaxSeed configurations.
constexpr double kDefaultSeedFraction = 0.2;
// Past 20 configurations a larger seed phase only delays the model: screened on the measured spaces (issue 30),
// a seed of at most 20 reached the optimum sooner on large budgets and ended within 10% as often
// (bench/results/2026-11-29/autotune/issue30_seedcap_2026-11-29/README.md).
constexpr std::size_t kDefaultMaxSeed = 20;

struct TuneOptions {
  Strategy strategy = Strategy::Model;
  Budget budget;
  std::uint64_t seed = 0;
  // --strategy model: the share of the budget measured in the space-filling seed phase before the model
  // guides the search (--seed-fraction; at least 10 configurations where the budget allows).
  double seed_fraction = kDefaultSeedFraction;
  // At most this many seed configurations (a larger fraction of a large budget still seeds 20); none when the
  // user set --seed-fraction, which is then taken as given.
  std::optional<std::size_t> max_seed = kDefaultMaxSeed;
  bool show_progress = false;
  // Invalid configurations allowed beyond the budget before the search stops (default: max(20, budget)).
  std::optional<std::size_t> max_invalid;
  // Stop after this many configurations evaluated, failed ones included (Kernel Tuner's max_fevals): a budget
  // counted as Kernel Tuner counts it, for side-by-side comparisons (--max-evaluations). Failed configurations
  // never stop such a run earlier.
  std::optional<std::size_t> max_evaluations;
};

struct MeasurementRecord {
  std::size_t sequence = 0;
  std::size_t config = 0;
  Outcome outcome;
  std::string phase;
  std::string source;  // "measured", "cache" or "kernel_tuner"
  double seconds = 0;  // time the measurement took (0 from a cache)
};

struct PhaseRecord {
  std::string name;
  std::size_t valid = 0, invalid = 0, from_cache = 0, rounds = 0;
  std::size_t restarts = 0;  // predict-confirm: rounds that left a stagnant basin
  std::size_t descent_rounds = 0;  // predict-confirm: rounds of the late descent (a space flat near its best)
  double seconds = 0;
};

struct TuneResult {
  std::vector<MeasurementRecord> measurements;
  std::optional<std::size_t> best;  // index into measurements
  std::size_t valid = 0, invalid = 0, from_cache = 0;
  std::optional<double> cv_r2;      // model strategy, once there are enough valid measurements
  std::vector<PhaseRecord> phases;
  std::vector<std::string> features;
  double wall_seconds = 0, evaluation_seconds = 0;
  std::string stop_reason;          // "budget", "evaluations", "space exhausted", "too many invalid configurations"
};

TuneResult tune(const SearchSpace& space, Evaluator& evaluator, Cache* cache,
                const std::unordered_map<std::string, CachedMeasurement>* imported, const TuneOptions& options);

// autotune.json (schemas/autotune.schema.json).
nlohmann::ordered_json result_document(const SearchSpace& space, const std::string& space_file,
                                       const Evaluator& evaluator, const TuneOptions& options, const TuneResult& result);
// The short text summary for the terminal.
std::string result_summary(const nlohmann::ordered_json& document);

}  // namespace rpl::autotune
