#include "autotune/simulation.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>

#include "autotune/cache.hpp"
#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

constexpr const char* kFlag = "--simulate";

// The cache's own space: its tune_params (values in their order; from the entries when absent) and the
// configurations it lists, except those Kernel Tuner marked InvalidConfig (never legal, never run).
SearchSpace space_of_cache(const nlohmann::json& doc, const std::string& path, const KernelTunerObjective& objective) {
  const auto keys = doc["tune_params_keys"].get<std::vector<std::string>>();
  const std::string origin = fmt::format("{} {}", kFlag, path);
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  for (const auto& k : keys) {
    if (doc.contains("tune_params") && doc["tune_params"].contains(k)) {
      parameters[k] = doc["tune_params"][k];
      continue;
    }
    // No tune_params: the values the entries hold, numbers in order, or strings and booleans as they first come
    // (a mix of numbers with strings or booleans: labels as they first come).
    nlohmann::ordered_json labels = nlohmann::ordered_json::array();
    std::set<std::string> labelled;
    for (const auto& [_, entry] : doc["cache"].items()) {
      if (!entry.is_object() || !entry.contains(k)) continue;
      const auto& v = entry[k];
      if ((v.is_string() || v.is_boolean() || v.is_number()) && labelled.insert(v.dump()).second)
        labels.push_back(nlohmann::ordered_json::parse(v.dump()));
    }
    if (std::all_of(labels.begin(), labels.end(), [](const auto& v) { return v.is_number(); })) {
      std::map<double, nlohmann::ordered_json> by_value;  // each number as first written (32 stays 32, not 32.0)
      for (const auto& v : labels) by_value.emplace(v.get<double>(), v);
      labels = nlohmann::ordered_json::array();
      for (const auto& [_, v] : by_value) labels.push_back(v);
    }
    parameters[k] = labels;
  }
  std::vector<std::vector<double>> configs;
  for (const auto& [key, entry] : doc["cache"].items()) {
    if (!entry.is_object())
      throw Error(ExitCode::InputCorrupt, fmt::format("{}: entry \"{}\" is not an object", origin, key));
    const nlohmann::json t = kernel_tuner_value(entry, objective);
    if (t.is_string() && t.get<std::string>() == "InvalidConfig") continue;
    std::vector<double> values;
    for (const auto& k : keys) {
      const auto v = entry.contains(k) ? listed_value(parameters[k], entry[k]) : std::nullopt;
      if (!v)
        throw Error(ExitCode::InputCorrupt, fmt::format("{}: entry \"{}\" has no value of tune_params for {}", origin, key, k));
      values.push_back(*v);
    }
    configs.push_back(std::move(values));
  }
  return SearchSpace::from_listed(parameters, configs, origin);
}

}  // namespace

TableEvaluator::TableEvaluator(std::unordered_map<std::string, Outcome> table, nlohmann::ordered_json description)
    : table_(std::move(table)), description_(std::move(description)) {
  for (const auto& [_, o] : table_)
    if (o.valid) {
      ++valid_;
      optimum_ = std::min(optimum_.value_or(o.objective), o.objective);
    }
}

std::vector<double> TableEvaluator::valid_objectives() const {
  std::vector<double> out;
  for (const auto& [_, o] : table_)
    if (o.valid) out.push_back(o.objective);
  std::sort(out.begin(), out.end());
  return out;
}

Outcome TableEvaluator::evaluate(const SearchSpace& space, ConfigView config, std::size_t) {
  const auto it = table_.find(space.key(config));
  if (it == table_.end()) return {false, 0, "not in the table"};
  return it->second;
}

Simulation load_simulation(const std::string& cache_path, const std::optional<std::string>& space_file,
                           const std::optional<std::string>& objective_name, std::optional<bool> higher_is_better) {
  const nlohmann::json doc = read_kernel_tuner_cache(cache_path, kFlag);
  if (objective_name) {
    // Named on the command line and in no entry (a typo, say): say so, with the columns the entries do have,
    // before asking for its direction.
    bool anywhere = false;
    std::set<std::string> columns;
    std::set<std::string> parameters;
    if (doc.contains("tune_params_keys") && doc["tune_params_keys"].is_array())
      for (const auto& k : doc["tune_params_keys"])
        if (k.is_string()) parameters.insert(k.get<std::string>());
    if (doc.contains("cache") && doc["cache"].is_object())
      for (const auto& [_, entry] : doc["cache"].items()) {
        if (!entry.is_object()) continue;
        anywhere = anywhere || entry.contains(*objective_name);
        for (const auto& [column, value] : entry.items())
          if (value.is_number() && !parameters.count(column)) columns.insert(column);
      }
    if (!anywhere) {
      std::string listed;
      for (const auto& c : columns) listed += (listed.empty() ? "" : ", ") + c;
      throw Error(ExitCode::Usage, fmt::format("{} {}: --simulate-objective \"{}\" is in none of the cache's entries "
                                               "(their numeric columns: {})", kFlag, cache_path, *objective_name,
                                               listed.empty() ? "none" : listed));
    }
  }
  const KernelTunerObjective objective = kernel_tuner_objective(doc, cache_path, kFlag, objective_name, higher_is_better);
  SearchSpace space = space_file ? SearchSpace::load(*space_file) : space_of_cache(doc, cache_path, objective);
  std::size_t skipped = 0;
  const auto measured = kernel_tuner_measurements(doc, cache_path, space, &skipped, kFlag, objective);
  if (measured.size() != space.size()) {
    std::string first;
    for (std::size_t i = 0; i < space.size() && first.empty(); ++i)
      if (!measured.count(space.key(space.config(i)))) first = space.key(space.config(i));
    throw Error(ExitCode::Usage,
                fmt::format("{} {}: {} of the {} configurations of space {} are not in the cache (the first: {}); a "
                            "simulation must be able to answer every one", kFlag, cache_path,
                            space.size() - measured.size(), space.size(), space_file.value_or(cache_path), first));
  }
  std::unordered_map<std::string, Outcome> table;
  std::size_t not_positive = 0;
  std::string first_not_positive;
  for (const auto& [key, m] : measured) {
    table[key] = m.outcome;
    if (!m.outcome.valid && m.outcome.reason.find(kNotPositive) != std::string::npos) {
      ++not_positive;
      if (first_not_positive.empty() || key < first_not_positive) first_not_positive = key;
    }
  }
  nlohmann::ordered_json description = {{"kind", "simulation"},
                                         {"unit", "as in the cache (Kernel Tuner: ms)"},
                                         {"cache", cache_path},
                                         {"objective", objective.name}};
  if (objective.higher_is_better) {
    description["unit"] = fmt::format("1 / {} (the cache's {}, where higher is better: the search minimizes its "
                                      "reciprocal)", objective.name, objective.name);
    description["higher_is_better"] = true;
  }
  TableEvaluator evaluator(std::move(table), std::move(description));
  if (!evaluator.optimum())
    throw Error(ExitCode::Usage,
                not_positive ? fmt::format("{} {}: no configuration of the space has a valid measurement; {} of them have "
                                           "{} zero or below (for example {}), and the search needs an objective above "
                                           "zero (it models its logarithm and compares configurations by ratios)",
                                           kFlag, cache_path, not_positive, objective.name, first_not_positive)
                             : fmt::format("{} {}: no configuration of the space has a valid measurement", kFlag,
                                           cache_path));
  return {std::move(space), std::move(evaluator), skipped, objective, not_positive};
}

}  // namespace rpl::autotune
