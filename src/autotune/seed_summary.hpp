#pragma once
// One strategy over many seeds on a simulated space, summed up as issue 30's report sums up a strategy
// (bench/autotune/anchor_report.py): each run's best against the optimum, the median and 90th percentile, the runs
// within 5% and 10%, and the methodology score of Willemsen et al. (FGCS 2024) against random search. What
// `rocm-perf autotune --simulate CACHE --seeds N` writes, so a user compares strategies on their own cache.
#include <cstdint>
#include <utility>
#include <vector>

#include "autotune/tuner.hpp"

namespace rpl::autotune {

struct SeedRun {
  std::uint64_t seed = 0;
  std::size_t evaluations = 0;  // configurations evaluated, failed ones included
  double best_ratio = 0;        // best found / optimum (infinity when nothing ran)
  std::vector<std::pair<std::size_t, double>> improvements;  // (evaluations so far, best ratio) at each improvement
};

// The run's curve: its best ratio each time it improved, counting evaluations as Kernel Tuner's max_fevals does.
SeedRun seed_run(const TuneResult& result, double optimum, std::uint64_t seed);

// random(t), t = 1..limit: the expected best ratio of t configurations drawn uniformly without replacement from
// `total`, of which the valid ones have `ratios` (sorted, the best 1) and the rest fail (find nothing), given that
// one of them is valid.
std::vector<double> random_search_expectation(const std::vector<double>& ratios, std::size_t total, std::size_t limit);

struct SeedSummary {
  double median = 0, p90 = 0;  // of the runs' best ratios (linear interpolation between order statistics)
  std::size_t within_5pct = 0, within_10pct = 0;
  // Mean over t = 1..limit of P(t) = (random(t) - best(t)) / (random(t) - 1), best(t) the mean over runs of the
  // best ratio after t evaluations (the space's worst valid ratio before a run's first valid one): 0 is random
  // search, 1 finding the optimum at once.
  double score = 0;
  double random_expected_best = 0;  // random(limit)
};

// `ratios`: every valid configuration's objective over the optimum, sorted; `total`: every configuration of the
// space; `limit`: the evaluations the score is averaged over.
SeedSummary summarize_seeds(const std::vector<SeedRun>& runs, const std::vector<double>& ratios, std::size_t total,
                            std::size_t limit);

}  // namespace rpl::autotune
