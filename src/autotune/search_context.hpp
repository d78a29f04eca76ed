#pragma once
// What every search strategy shares: measuring a configuration (or taking it from the cache or an imported
// Kernel Tuner cache), the budget of valid measurements, the phases, progress on the terminal and the random
// generator. A strategy (strategy.hpp) only decides which configuration to measure next.
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "autotune/tuner.hpp"
#include "support/progress.hpp"

namespace rpl::autotune {

class SearchContext {
 public:
  SearchContext(const SearchSpace& space, Evaluator& evaluator, Cache* cache,
                const std::unordered_map<std::string, CachedMeasurement>* imported, const TuneOptions& options);

  const SearchSpace& space() const { return space_; }
  const TuneOptions& options() const { return options_; }
  // The one generator of the run: the same seed gives the same search.
  std::mt19937_64& rng() { return rng_; }
  std::size_t budget() const { return budget_; }
  void set_budget(std::size_t budget) { budget_ = budget; }
  // The budget of valid measurements is spent, or too many configurations failed.
  bool done() const { return result_.valid >= budget_ || stopped_; }
  bool stopped() const { return stopped_; }
  bool measured(std::size_t index) const { return measured_[index]; }
  const TuneResult& result() const { return result_; }
  TuneResult& result() { return result_; }
  PhaseRecord& phase() { return result_.phases.back(); }

  void begin_phase(const std::string& name);
  void end_phase();
  // Measures configuration `index` (or takes it from a cache). Returns whether it was valid.
  bool measure(std::size_t index);
  // After the strategy: the stop reason and the wall time; throws when nothing ran.
  TuneResult finish();

 private:
  void show_progress();
  [[noreturn]] void throw_all_failed();

  using Clock = std::chrono::steady_clock;
  const SearchSpace& space_;
  Evaluator& evaluator_;
  Cache* cache_;
  const std::unordered_map<std::string, CachedMeasurement>* imported_;
  TuneOptions options_;
  std::mt19937_64 rng_;
  std::vector<bool> measured_;
  Progress progress_;
  std::size_t budget_ = 0, max_invalid_ = 0;
  bool stopped_ = false;
  std::string last_failure_;
  TuneResult result_;
  Clock::time_point start_, phase_start_;
};

}  // namespace rpl::autotune
