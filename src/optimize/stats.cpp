#include "optimize/stats.hpp"

#include <algorithm>
#include <cmath>

namespace rpl::optimize {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

MannWhitney mann_whitney_less(const std::vector<double>& original, const std::vector<double>& candidate) {
  MannWhitney r;
  std::size_t m = original.size(), n = candidate.size();
  if (m == 0 || n == 0) return r;
  for (double a : original)
    for (double b : candidate) r.u += b < a ? 1.0 : (b == a ? 0.5 : 0.0);
  // count[k][u]: the number of arrangements of k... computed as f(m, n, u) by the recurrence
  // f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u) over i originals and j candidates.
  std::size_t max_u = m * n;
  std::vector<std::vector<std::vector<double>>> f(m + 1, std::vector<std::vector<double>>(n + 1, std::vector<double>(max_u + 1, 0)));
  for (std::size_t i = 0; i <= m; ++i)
    for (std::size_t j = 0; j <= n; ++j)
      for (std::size_t u = 0; u <= i * j; ++u) {
        if (i == 0 || j == 0) { f[i][j][u] = u == 0 ? 1 : 0; continue; }
        double v = f[i][j - 1][u];
        if (u >= j) v += f[i - 1][j][u - j];
        f[i][j][u] = v;
      }
  double total = 0, tail = 0;
  double threshold = std::ceil(r.u - 1e-9);  // a half from ties rounds to the conservative side
  for (std::size_t u = 0; u <= max_u; ++u) {
    total += f[m][n][u];
    if (double(u) >= threshold) tail += f[m][n][u];
  }
  r.p_value = total > 0 ? tail / total : 1;
  return r;
}

}  // namespace rpl::optimize
