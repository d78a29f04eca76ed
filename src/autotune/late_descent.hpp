#pragma once
// The model search's late descent (strategy_model.cpp; docs/autotune.md, "The search"): once a quarter of the
// budget is spent, on a space that is flat near the best measured (many configurations within 2% of it, as on the
// NVIDIA dedispersion spaces), a variable-neighbourhood descent around the incumbent takes every other round, the
// model's own rounds the others. Where the incumbent is isolated (the convolution spaces) the gate stays closed
// and the search goes on as before; only the final descent (the last tenth of the budget) runs there too. The pure
// parts, tested alone (tests/test_autotune_search.cpp).
#include <cstddef>
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

// Whether a round that starts with `valid` valid measurements of a budget of `budget` is in the final descent.
bool in_final_descent(std::size_t valid, std::size_t budget);

// The gate, decided once when the late part of the budget begins: whether the valid objectives measured so far
// are flat near their best.
bool flat_near_best(const std::vector<double>& valid_objectives);

// Whether `candidate` is in neighbourhood `level` of `incumbent`: 0, one parameter changed; 1, two parameters
// changed, each by one index step; 2, any two parameters changed.
bool in_descent_neighbourhood(ConfigView candidate, ConfigView incumbent, int level);

}  // namespace rpl::autotune
