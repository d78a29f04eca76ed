#pragma once
// A search space: named parameters, each with a list of values (numbers, or strings and booleans), and restrictions over them. The
// valid configurations (those every restriction accepts) are enumerated once, depth first, each restriction
// checked as soon as the parameters it reads are set, so large products with tight restrictions stay cheap.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rpl::autotune {

struct Parameter {
  std::string name;
  // The numbers the model and the restrictions see. A parameter whose list holds only strings and booleans
  // (Kernel Tuner's "layout": ["NCHW", "NHWC"]) has their positions instead: 0, 1, 2..., but a list of booleans
  // alone ("use_shmem": [true, false]) has 1 for true and 0 for false, as Python has. A list that mixes numbers with
  // strings or booleans in a listed space (from_listed: no restrictions) has positions.
  std::vector<double> values;
  std::vector<std::string> text;  // each value as it is substituted into commands ("64", "0.5", "NHWC", "True")
  std::vector<nlohmann::ordered_json> labels;  // such a parameter's values as listed; empty for a numeric one
  // The number for `v`, a value as a Kernel Tuner cache or a configuration writes it: the number itself, or the
  // position of a listed string or boolean. Nothing when it is neither (whether a number is listed is find()'s).
  std::optional<double> value_of(const nlohmann::json& v) const;
};

// The same for a parameter still given as its JSON list of values (from_listed's `parameters`).
std::optional<double> listed_value(const nlohmann::ordered_json& values, const nlohmann::json& v);

// One configuration: the index of its value in each parameter, in parameter order.
using ConfigView = std::span<const std::uint16_t>;

class SearchSpace {
 public:
  // Throws rpl::Error(Usage) naming `origin` and the offending parameter, value or restriction.
  static SearchSpace from_json(const nlohmann::ordered_json& document, const std::string& origin);
  static SearchSpace load(const std::string& path);  // InputMissing / InputCorrupt / Usage
  // A space given by the list of its configurations rather than by restrictions (a Kernel Tuner cache's
  // configurations, for --simulate): `parameters` as in from_json, each configuration's values in parameter
  // order. Throws Usage naming `origin` for a value that is not among its parameter's values, or no configuration.
  static SearchSpace from_listed(const nlohmann::ordered_json& parameters, const std::vector<std::vector<double>>& configs,
                                 const std::string& origin);

  const std::vector<Parameter>& parameters() const { return parameters_; }
  const std::vector<std::string>& restrictions() const { return restrictions_; }
  std::size_t size() const { return count_; }  // valid configurations
  double cartesian_size() const;
  ConfigView config(std::size_t i) const {
    return {indices_.data() + i * parameters_.size(), parameters_.size()};
  }
  double value(ConfigView c, std::size_t p) const { return parameters_[p].values[c[p]]; }
  const std::string& text(ConfigView c, std::size_t p) const { return parameters_[p].text[c[p]]; }
  // "BM=64,BN=32": stable, used as the cache key.
  std::string key(ConfigView c) const;
  nlohmann::ordered_json to_json(ConfigView c) const;  // {"BM": 64, ...}
  // The configuration with these parameter values, or npos.
  std::size_t find(const std::vector<double>& values) const;
  // Canonical text of parameters and restrictions: two spaces with the same fingerprint are the same.
  std::string fingerprint() const;
  // Whether the configurations were listed (from_listed) instead of enumerated from restrictions.
  bool listed() const { return listed_; }
  nlohmann::ordered_json definition() const;  // {"parameters": ..., "restrictions": ...}
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  void enumerate(const std::string& origin);
  std::vector<Parameter> parameters_;
  std::vector<std::string> restrictions_;
  std::vector<std::uint16_t> indices_;  // size() x parameters, row major
  std::size_t count_ = 0;
  bool listed_ = false;
};

// The most valid configurations a space may have (enumeration memory and model time grow with it).
constexpr std::size_t kMaxConfigurations = 5'000'000;

}  // namespace rpl::autotune
