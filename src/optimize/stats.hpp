#pragma once
// The performance gate's statistics. Samples are per-process medians of replayed kernel time (each process a
// fresh replay), original and candidate alternated, so run-to-run drift hits both alike.
// Mann-Whitney U, one-sided (H1: the candidate's times are smaller), exact null distribution computed by the
// usual recurrence (no normal approximation; ties count one half), which is valid for the small sample sizes
// used here (with 5 rounds each the smallest attainable p is 1/252).
#include <vector>

namespace rpl::optimize {

double median(std::vector<double> v);

struct MannWhitney {
  double u = 0;         // U of the candidate sample: pairs (original, candidate) with candidate < original
  double p_value = 1;   // P(U >= u) under H0
};

MannWhitney mann_whitney_less(const std::vector<double>& original, const std::vector<double>& candidate);

}  // namespace rpl::optimize
