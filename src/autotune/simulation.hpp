#pragma once
// Tuning without running anything: a measured table answers every configuration. `rocm-perf autotune
// --simulate CACHE` tunes against a Kernel Tuner cache (a brute-forced space, or any cache that holds every
// configuration of the space), so strategies, seeds and budgets can be compared on one's own data in seconds;
// the benchmark harness (bench/autotune_quality) uses the same evaluator over its measured spaces.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "autotune/cache.hpp"
#include "autotune/evaluator.hpp"
#include "autotune/space.hpp"

namespace rpl::autotune {

// Looks configurations up by key (SearchSpace::key); a configuration the table marks invalid fails as its
// measurement did, one missing from the table is invalid ("not in the table").
class TableEvaluator : public Evaluator {
 public:
  TableEvaluator(std::unordered_map<std::string, Outcome> table, nlohmann::ordered_json description);
  Outcome evaluate(const SearchSpace& space, ConfigView config, std::size_t sequence) override;
  nlohmann::ordered_json describe() const override { return description_; }
  // The best valid objective in the table (nullopt when none is valid) and the number of valid entries.
  std::optional<double> optimum() const { return optimum_; }
  std::size_t valid() const { return valid_; }
  // Every valid objective in the table, ascending.
  std::vector<double> valid_objectives() const;

 private:
  std::unordered_map<std::string, Outcome> table_;
  nlohmann::ordered_json description_;
  std::optional<double> optimum_;
  std::size_t valid_ = 0;
};

struct Simulation {
  SearchSpace space;
  TableEvaluator evaluator;
  std::size_t skipped = 0;  // cache entries outside the space
  KernelTunerObjective objective;  // what the entries were read on
  std::size_t not_positive = 0;  // configurations whose objective is zero or below: failed (kNotPositive)
};

// Reads `cache_path` (Kernel Tuner cache, .json or .json.gz, unterminated accepted). The space is
// `space_file`'s when given (same parameter names in the same order, and every one of its configurations in
// the cache: a simulation must be able to answer whatever the search asks), else the configurations the cache
// lists over its tune_params (entries marked InvalidConfig, outside Kernel Tuner's restrictions, left out).
// Throws InputMissing / InputCorrupt for an unreadable or damaged cache, Usage for a mismatched space or a
// cache without a valid measurement; each message names the file. The objective is the cache's, or
// `objective_name` (another column of its entries); higher is better as `higher_is_better` says, else as Kernel
// Tuner's defaults (kernel_tuner_objective): there the table holds reciprocals, since the search minimizes.
Simulation load_simulation(const std::string& cache_path, const std::optional<std::string>& space_file,
                           const std::optional<std::string>& objective_name = std::nullopt,
                           std::optional<bool> higher_is_better = std::nullopt);

}  // namespace rpl::autotune
