#pragma once
// The API-overhead section (analysis/api_stats): profile.json's "api_stats", the terminal table and the
// HTML section, one formatting of the same numbers.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/api_stats.hpp"

namespace rpl::report {

nlohmann::json api_stats_json(const analysis::ApiStatsResult& s);
// "API calls (...)" heading and one row per call name, the `top` busiest, in `width` columns (the least telling
// columns left out when it is short); ends in a newline.
std::string api_stats_terminal(const analysis::ApiStatsResult& s, std::size_t top, std::size_t width);
// An <h2> and a <table id="api-stats">, names escaped.
std::string api_stats_html(const analysis::ApiStatsResult& s, std::size_t top);

}  // namespace rpl::report
