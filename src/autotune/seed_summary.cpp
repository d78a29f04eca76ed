#include "autotune/seed_summary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace rpl::autotune {

SeedRun seed_run(const TuneResult& result, double optimum, std::uint64_t seed) {
  SeedRun run;
  run.seed = seed;
  run.evaluations = result.measurements.size();
  run.best_ratio = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < result.measurements.size(); ++i) {
    const auto& m = result.measurements[i];
    if (!m.outcome.valid) continue;
    const double ratio = m.outcome.objective / optimum;
    if (ratio < run.best_ratio) {
      run.best_ratio = ratio;
      run.improvements.emplace_back(i + 1, ratio);
    }
  }
  return run;
}

std::vector<double> random_search_expectation(const std::vector<double>& ratios, std::size_t total, std::size_t limit) {
  std::vector<double> out;
  out.reserve(limit);
  const double n = static_cast<double>(total);
  for (std::size_t t = 1; t <= limit; ++t) {
    // q(k): the chance that none of the k best valid configurations is among t draws; the best drawn is the
    // k-th with chance q(k-1) - q(k).
    double q_prev = 1.0, expected = 0.0;
    for (std::size_t k = 1; k <= ratios.size(); ++k) {
      const double left = n - static_cast<double>(k - 1);
      const double q = left > 0 ? q_prev * std::max(0.0, (left - static_cast<double>(t)) / left) : 0.0;
      expected += ratios[k - 1] * (q_prev - q);
      q_prev = q;
      if (q < 1e-15) break;  // the rest weighs nothing
    }
    out.push_back(q_prev < 1.0 ? expected / (1.0 - q_prev) : ratios.empty() ? 0.0 : ratios.back());
  }
  return out;
}

namespace {

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = static_cast<double>(v.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

SeedSummary summarize_seeds(const std::vector<SeedRun>& runs, const std::vector<double>& ratios, std::size_t total,
                            std::size_t limit) {
  SeedSummary s;
  if (runs.empty() || ratios.empty() || limit == 0) return s;
  std::vector<double> best;
  for (const auto& r : runs) {
    best.push_back(r.best_ratio);
    s.within_5pct += r.best_ratio <= 1.05 ? 1 : 0;
    s.within_10pct += r.best_ratio <= 1.10 ? 1 : 0;
  }
  s.median = percentile(best, 0.5);
  s.p90 = percentile(best, 0.9);
  const std::vector<double> random = random_search_expectation(ratios, total, limit);
  s.random_expected_best = random.back();
  double sum = 0;
  std::vector<std::size_t> next(runs.size(), 0);
  std::vector<double> current(runs.size(), ratios.back());
  for (std::size_t t = 1; t <= limit; ++t) {
    double mean = 0;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const auto& imp = runs[r].improvements;
      while (next[r] < imp.size() && imp[next[r]].first <= t) current[r] = std::min(current[r], imp[next[r]++].second);
      mean += current[r];
    }
    mean /= static_cast<double>(runs.size());
    const double gap = random[t - 1] - 1.0;
    // Where random search is already at the optimum there is nothing to gain over it: P(t) counts as 0 then.
    sum += gap > 0 ? (random[t - 1] - mean) / gap : 0.0;
  }
  s.score = sum / static_cast<double>(limit);
  return s;
}

}  // namespace rpl::autotune
