#include "analysis/api_stats.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <utility>

namespace rpl::analysis {

bool is_api_category(const std::string& category) {
  if (category.rfind("MARKER", 0) == 0 || category.find("ROCTX") != std::string::npos ||
      category.find("NVTX") != std::string::npos)
    return false;
  return category.ends_with("_API") || category.ends_with("_API_EXT");
}

double nearest_rank_quantile(const std::vector<double>& sorted, double q) {
  const std::size_t n = sorted.size();
  if (q <= 0) return sorted.front();
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
  return sorted[std::clamp<std::size_t>(rank, 1, n) - 1];
}

ApiStatsResult compute_api_stats(const Trace& trace) {
  ApiStatsResult out;
  std::map<std::pair<Index, Index>, std::vector<double>> durations;  // (name, category) -> durations
  for (const ApiCall& call : trace.api_calls) {
    if (!is_api_category(trace.strings.at(call.category))) {
      ++out.markers_excluded;
      continue;
    }
    durations[{call.name, call.category}].push_back(static_cast<double>(call.end - call.start));
  }
  for (auto& [key, values] : durations) {
    std::sort(values.begin(), values.end());
    ApiCallStats s;
    s.name = trace.strings.at(key.first);
    s.category = trace.strings.at(key.second);
    s.count = values.size();
    s.total_ns = std::accumulate(values.begin(), values.end(), 0.0);
    s.mean_ns = s.total_ns / static_cast<double>(s.count);
    s.p50_ns = nearest_rank_quantile(values, 0.50);
    s.p99_ns = nearest_rank_quantile(values, 0.99);
    s.min_ns = values.front();
    s.max_ns = values.back();
    out.total_calls += s.count;
    out.total_ns += s.total_ns;
    out.calls.push_back(std::move(s));
  }
  for (auto& s : out.calls) s.percent = out.total_ns > 0 ? 100.0 * s.total_ns / out.total_ns : 0.0;
  std::sort(out.calls.begin(), out.calls.end(), [](const ApiCallStats& a, const ApiCallStats& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name != b.name ? a.name < b.name : a.category < b.category;
  });
  return out;
}

}  // namespace rpl::analysis
