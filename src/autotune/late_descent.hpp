#pragma once
// The model search's late descent (strategy_model.cpp; docs/autotune.md, "The search"): once a quarter of the
// budget is spent, on a space that is flat near the best measured (many configurations within 2% of it, as on the
// NVIDIA dedispersion spaces), a variable-neighbourhood descent around the incumbent takes every other round, the
// model's own rounds the others. Where the incumbent is isolated (the convolution spaces) the gate stays closed
// and the search goes on as before; only the final descent (the last tenth of the budget) runs there too. The pure
// parts, tested alone (tests/test_autotune_search.cpp).
#include <cstddef>
#include <optional>
#include <vector>

#include "autotune/space.hpp"

namespace rpl::autotune {

// The share of the budget of valid measurements, at its end, over which the descent takes turns with the model.
inline constexpr double kDescentShareOfBudget = 0.75;
// Flat near the best: at least kFlatMinCount other valid measurements, and at least kFlatMinShare of all valid
// measurements, within kFlatTolerance of the best one.
inline constexpr double kFlatTolerance = 0.02;
inline constexpr double kFlatMinShare = 0.15;
inline constexpr std::size_t kFlatMinCount = 5;
// The descent's neighbourhoods, in the order it tries them (see in_descent_neighbourhood).
inline constexpr int kDescentNeighbourhoods = 3;
// The final descent: over this share of the budget, at its end, every round is a descent around the incumbent on
// any space, gate or not. On the convolution spaces the model's rounds end one parameter change from a better
// configuration that they rank low (kt_convolution_A4000 at 5%: runs held block_size_x=32 at 1.0036 times the
// optimum, the optimum being block_size_x=256). Screened on held-out seeds: 220 runs ended better, 29 worse, of
// 800 runs (bench/results/2026-11-30/autotune/issue30_spiky_model_atg_2026-11-30/README.md).
inline constexpr double kFinalDescentShareOfBudget = 0.10;

// How much of its budget a run has spent: valid measurements of the budget of them and, under --max-evaluations,
// configurations evaluated (failed ones included, as Kernel Tuner counts max_fevals) of that limit. The run ends at
// whichever limit it reaches first, so the shares below are of that one: planned in valid measurements alone, a run
// cut by the evaluations limit lost its final descent to the failed configurations it had measured (issue 30's
// report on kt_convolution_A6000 at 5%: 24 of 50 runs improved only after the cut).
struct BudgetUse {
  std::size_t valid = 0, budget = 0;
  std::size_t evaluated = 0;
  std::optional<std::size_t> max_evaluations;
};

// Whether the last `share` of the budget has begun (of either limit).
bool in_last_share(const BudgetUse& use, double share);
// Whether a round that starts at `use` is in the final descent.
inline bool in_final_descent(const BudgetUse& use) { return in_last_share(use, kFinalDescentShareOfBudget); }

// The gate, decided once when the late part of the budget begins: whether the valid objectives measured so far
// are flat near their best.
bool flat_near_best(const std::vector<double>& valid_objectives);

// The runner-up: the best measured configuration that differs from the best one in at least half the parameters
// and is within kRunnerUpTolerance of it. Given the valid objectives best first and their configurations, its
// position in that order, or nothing. In the final descent on a space whose gate is open, once the incumbent's
// one-change neighbourhood is all measured, every other round is a descent around it (strategy_model.cpp).
// Why: near-ties a few changes apart are where a flat space's runs stop (kt_dedispersion_A6000 at 5%: 6 of 50
// runs of issue 30's report ended at 1.00159 times the optimum, four changes from it; bench/results/2026-12-02/
// autotune/issue30_runner_up_descent_2026-12-02/a6000_near_optimum.txt). Adopted on held-out seeds
// (bench/results/2026-12-02/autotune/issue30_runner_up_after_level0_2026-12-02/README.md).
inline constexpr double kRunnerUpTolerance = kFlatTolerance;
std::optional<std::size_t> runner_up(const std::vector<double>& objectives_best_first,
                                     const std::vector<ConfigView>& configs);

// The number of parameters in which two configurations differ.
std::size_t changed_parameters(ConfigView a, ConfigView b);

// Whether `candidate` is in neighbourhood `level` of `incumbent`: 0, one parameter changed; 1, two parameters
// changed, each by one index step; 2, any two parameters changed.
bool in_descent_neighbourhood(ConfigView candidate, ConfigView incumbent, int level);

}  // namespace rpl::autotune
