// The many-seed summary of a simulated strategy (--simulate --seeds): random search's expectation and the
// methodology score, on cases small enough to work out by hand.
#include <gtest/gtest.h>

#include <vector>

#include "autotune/seed_summary.hpp"

namespace rpl::autotune {
namespace {

// Three configurations: ratios 1 and 2, and one that fails. One draw: 1 or 2 alike given a valid one (1.5); two
// draws: {1,2} and {1,fail} give 1, {2,fail} 2 (4/3); all three: 1.
TEST(AutotuneSeedSummary, RandomSearchExpectationByHand) {
  const std::vector<double> r = random_search_expectation({1.0, 2.0}, 3, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_DOUBLE_EQ(r[0], 1.5);
  EXPECT_DOUBLE_EQ(r[1], 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(r[2], 1.0);
}

TEST(AutotuneSeedSummary, MedianPercentileWithinAndScoreByHand) {
  // Space: ratios 1, 2, 4 (no failures): random(1) = 7/3, random(2) = (1+1+2)/3 = 4/3, random(3) = 1.
  const std::vector<double> ratios = {1.0, 2.0, 4.0};
  SeedRun a;  // the optimum at once
  a.best_ratio = 1.0;
  a.evaluations = 3;
  a.improvements = {{1, 1.0}};
  SeedRun b;  // 2 first, the optimum at the third evaluation
  b.best_ratio = 1.0;
  b.evaluations = 3;
  b.improvements = {{1, 2.0}, {3, 1.0}};
  SeedRun c;  // a failure, then 1.08
  c.best_ratio = 1.08;
  c.evaluations = 3;
  c.improvements = {{2, 1.08}};
  const SeedSummary s = summarize_seeds({a, b, c}, ratios, 3, 3);
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_DOUBLE_EQ(s.p90, 1.0 + 0.8 * 0.08);  // between the 2nd and 3rd order statistics
  EXPECT_EQ(s.within_5pct, 2u);
  EXPECT_EQ(s.within_10pct, 3u);
  // best(t): t=1 mean(1, 2, 4) (c has no valid one yet: the worst ratio) = 7/3, P = 0; t=2 mean(1, 2, 1.08),
  // P = (4/3 - 4.08/3) / (1/3) = -0.08; t=3 random is 1 already: P counts 0.
  EXPECT_NEAR(s.score, (0.0 - 0.08 + 0.0) / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.random_expected_best, 1.0);
}

}  // namespace
}  // namespace rpl::autotune
