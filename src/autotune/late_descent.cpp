#include "autotune/late_descent.hpp"

#include <algorithm>

namespace rpl::autotune {

bool flat_near_best(const std::vector<double>& valid_objectives) {
  if (valid_objectives.empty()) return false;
  const double best = *std::min_element(valid_objectives.begin(), valid_objectives.end());
  const auto near = static_cast<std::size_t>(std::count_if(valid_objectives.begin(), valid_objectives.end(),
                                                           [&](double v) { return v <= (1.0 + kFlatTolerance) * best; }));
  const std::size_t others = near - 1;  // the best itself is not counted
  return others >= kFlatMinCount &&
         static_cast<double>(others) >= kFlatMinShare * static_cast<double>(valid_objectives.size());
}

bool in_last_share(const BudgetUse& use, double share) {
  const auto begun = [share](std::size_t spent, std::size_t limit) {
    return static_cast<double>(spent) >= (1.0 - share) * static_cast<double>(limit);
  };
  return begun(use.valid, use.budget) || (use.max_evaluations && begun(use.evaluated, *use.max_evaluations));
}

std::size_t changed_parameters(ConfigView a, ConfigView b) {
  std::size_t d = 0;
  for (std::size_t q = 0; q < a.size(); ++q) d += a[q] != b[q];
  return d;
}

std::optional<std::size_t> runner_up(const std::vector<double>& objectives_best_first,
                                     const std::vector<ConfigView>& configs) {
  if (objectives_best_first.empty()) return std::nullopt;
  const ConfigView best = configs.front();
  for (std::size_t i = 1; i < objectives_best_first.size(); ++i) {
    if (objectives_best_first[i] > (1.0 + kRunnerUpTolerance) * objectives_best_first.front()) break;
    if (2 * changed_parameters(configs[i], best) >= best.size()) return i;
  }
  return std::nullopt;
}

bool in_descent_neighbourhood(ConfigView candidate, ConfigView incumbent, int level) {
  std::size_t changed = 0;
  bool one_step_each = true;
  for (std::size_t q = 0; q < candidate.size(); ++q)
    if (candidate[q] != incumbent[q]) {
      ++changed;
      one_step_each = one_step_each && (candidate[q] + 1 == incumbent[q] || incumbent[q] + 1 == candidate[q]);
    }
  if (level == 0) return changed == 1;
  if (level == 1) return changed == 2 && one_step_each;
  return changed == 2;
}

}  // namespace rpl::autotune
