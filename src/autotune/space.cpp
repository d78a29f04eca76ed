#include "autotune/space.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "autotune/restriction.hpp"
#include "support/errors.hpp"

namespace rpl::autotune {
namespace {

std::string value_text(const nlohmann::ordered_json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  // Floats: shortest text that reads back to the same double.
  return v.dump();
}

// Strings and booleans only; with `mixed`, any list that is not all numbers (Kernel Tuner's own test cache lists
// "test_mixed": ["test", 1, true, 2.45]). A space with restrictions refuses mixed lists: its restrictions would
// silently see positions where they expect numbers. A listed space (from_listed) has no restrictions.
bool holds_labels(const nlohmann::ordered_json& values, bool mixed = false) {
  const auto label = [](const auto& v) { return v.is_string() || v.is_boolean(); };
  return mixed ? std::any_of(values.begin(), values.end(), label) : std::all_of(values.begin(), values.end(), label);
}

// A list of booleans alone: its values are 1 for true and 0 for false, as in Python (Kernel Tuner's restrictions
// compare them with True, 1...), not positions: a list written [true, false] must not make true 0.
bool holds_booleans(const nlohmann::ordered_json& values) {
  return values.is_array() && !values.empty() &&
         std::all_of(values.begin(), values.end(), [](const auto& v) { return v.is_boolean(); });
}

Parameter parse_parameter(const std::string& name, const nlohmann::ordered_json& values, const std::string& origin,
                          bool mixed = false) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    throw Error(ExitCode::Usage, fmt::format("space {}: parameter name \"{}\" must start with a letter or _", origin, name));
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      throw Error(ExitCode::Usage,
                  fmt::format("space {}: parameter name \"{}\" may hold only letters, digits and _", origin, name));
  if (!values.is_array())
    throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\" must be a list of values", origin, name));
  if (values.empty())
    throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\" has no values", origin, name));
  if (values.size() > 65535)
    throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\" has {} values (at most 65,535)", origin,
                                             name, values.size()));
  Parameter p{name, {}, {}, {}};
  if (holds_labels(values, mixed)) {
    const bool booleans = holds_booleans(values);
    // Strings and booleans: the model and the restrictions see their positions; commands and keys their text
    // (a boolean as Kernel Tuner writes it in a cache key: True, False; a number of a mixed list as written).
    std::set<std::string> seen;
    for (const auto& v : values) {
      if (!v.is_string() && !v.is_boolean() && !v.is_number())
        throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} is not a number, string or "
                                                 "boolean", origin, name, v.dump()));
      const std::string text = v.is_string() ? v.get<std::string>()
                               : v.is_boolean() ? (v.get<bool>() ? "True" : "False")
                                                : value_text(v);
      if (text.find(',') != std::string::npos)
        throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} holds a comma (configurations "
                                                 "are keyed by their values joined with commas)", origin, name, v.dump()));
      if (!seen.insert(text).second)
        throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} is listed twice", origin, name, v.dump()));
      p.values.push_back(booleans ? (v.get<bool>() ? 1.0 : 0.0) : static_cast<double>(p.labels.size()));
      p.text.push_back(text);
      p.labels.push_back(v);
    }
    return p;
  }
  std::set<double> seen;
  for (const auto& v : values) {
    if (!v.is_number())
      throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} is not a number", origin, name,
                                               v.dump()));
    const double d = v.get<double>();
    if (!std::isfinite(d))
      throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} is not finite", origin, name, v.dump()));
    if (!seen.insert(d).second)
      throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} is listed twice", origin, name, v.dump()));
    p.values.push_back(d);
    p.text.push_back(value_text(v));
  }
  return p;
}

// The position of `v` among `labels` (strings and booleans, holds_labels; numbers too in a mixed list), the
// same kind only: true is not 1.
std::optional<double> label_position(const auto& labels, const nlohmann::json& v) {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& l = labels[i];
    if ((l.is_string() && v.is_string() && l.template get<std::string>() == v.template get<std::string>()) ||
        (l.is_boolean() && v.is_boolean() && l.template get<bool>() == v.template get<bool>()) ||
        (l.is_number() && v.is_number() && l.template get<double>() == v.template get<double>()))
      return static_cast<double>(i);
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> Parameter::value_of(const nlohmann::json& v) const {
  if (!labels.empty()) {
    const std::optional<double> at = label_position(labels, v);
    return at ? std::optional<double>(values[static_cast<std::size_t>(*at)]) : std::nullopt;
  }
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

std::optional<double> listed_value(const nlohmann::ordered_json& values, const nlohmann::json& v) {
  if (holds_booleans(values))
    return v.is_boolean() ? std::optional<double>(v.get<bool>() ? 1.0 : 0.0) : std::nullopt;  // as parse_parameter
  if (values.is_array() && holds_labels(values, true)) return label_position(values, v);
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

SearchSpace SearchSpace::from_json(const nlohmann::ordered_json& doc, const std::string& origin) {
  if (!doc.is_object() || !doc.contains("parameters") || !doc["parameters"].is_object())
    throw Error(ExitCode::Usage,
                fmt::format("space {}: expected {{\"parameters\": {{\"NAME\": [values...]}}, \"restrictions\": [...]}}", origin));
  for (const auto& [key, _] : doc.items())
    if (key != "parameters" && key != "restrictions")
      throw Error(ExitCode::Usage, fmt::format("space {}: unknown key \"{}\" (expected parameters, restrictions)", origin, key));
  SearchSpace s;
  for (const auto& [name, values] : doc["parameters"].items()) s.parameters_.push_back(parse_parameter(name, values, origin));
  if (s.parameters_.empty()) throw Error(ExitCode::Usage, fmt::format("space {}: the space is empty (no parameters)", origin));
  if (doc.contains("restrictions")) {
    const auto& r = doc["restrictions"];
    if (!r.is_array()) throw Error(ExitCode::Usage, fmt::format("space {}: \"restrictions\" must be a list of strings", origin));
    for (const auto& e : r) {
      if (!e.is_string())
        throw Error(ExitCode::Usage, fmt::format("space {}: restriction {} is not a string", origin, e.dump()));
      s.restrictions_.push_back(e.get<std::string>());
    }
  }
  s.enumerate(origin);
  return s;
}

SearchSpace SearchSpace::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ExitCode::InputMissing, fmt::format("space {}: cannot be read", path));
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::InputCorrupt, fmt::format("space {}: not valid JSON ({})", path, e.what()));
  }
  return from_json(doc, path);
}

SearchSpace SearchSpace::from_listed(const nlohmann::ordered_json& parameters,
                                     const std::vector<std::vector<double>>& configs, const std::string& origin) {
  SearchSpace s;
  if (!parameters.is_object() || parameters.empty())
    throw Error(ExitCode::Usage, fmt::format("space {}: no parameters", origin));
  for (const auto& [name, values] : parameters.items()) s.parameters_.push_back(parse_parameter(name, values, origin, true));
  std::set<std::vector<std::uint16_t>> rows;  // sorted: find() searches the rows in lexicographic order
  for (const auto& values : configs) {
    if (values.size() != s.parameters_.size())
      throw Error(ExitCode::Usage, fmt::format("space {}: a configuration has {} values for {} parameters", origin,
                                               values.size(), s.parameters_.size()));
    std::vector<std::uint16_t> row(values.size());
    for (std::size_t p = 0; p < values.size(); ++p) {
      const auto& vs = s.parameters_[p].values;
      const auto it = std::find(vs.begin(), vs.end(), values[p]);
      if (it == vs.end())
        throw Error(ExitCode::Usage, fmt::format("space {}: parameter \"{}\": value {} is not among its values", origin,
                                                 s.parameters_[p].name, values[p]));
      row[p] = static_cast<std::uint16_t>(it - vs.begin());
    }
    rows.insert(std::move(row));
  }
  if (rows.empty()) throw Error(ExitCode::Usage, fmt::format("space {}: no configuration", origin));
  if (rows.size() > kMaxConfigurations)
    throw Error(ExitCode::Usage, fmt::format("space {}: more than {} configurations", origin, kMaxConfigurations));
  for (const auto& row : rows) s.indices_.insert(s.indices_.end(), row.begin(), row.end());
  s.count_ = rows.size();
  s.listed_ = true;
  return s;
}

void SearchSpace::enumerate(const std::string& origin) {
  const std::size_t n = parameters_.size();
  std::vector<double> values(n, 0.0);
  std::vector<Restriction> restrictions;
  for (const auto& r : restrictions_) {
    try {
      restrictions.emplace_back(r, parameters_, values.data());
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("space {}: {}", origin, e.what()));
    }
  }
  // checks[d]: restrictions whose last parameter read is d (constant ones go at depth 0).
  std::vector<std::vector<const Restriction*>> checks(n);
  for (const auto& r : restrictions) checks[r.used().empty() ? 0 : r.used().back()].push_back(&r);
  std::vector<std::uint16_t> current(n, 0);
  std::size_t depth = 0;
  // Iterative depth-first walk over the product: advance the digit at `depth`, check, go deeper or back.
  std::vector<int> next(n, 0);
  while (true) {
    if (next[depth] == static_cast<int>(parameters_[depth].values.size())) {
      if (depth == 0) break;
      next[depth] = 0;
      --depth;
      continue;
    }
    current[depth] = static_cast<std::uint16_t>(next[depth]);
    values[depth] = parameters_[depth].values[next[depth]];
    ++next[depth];
    bool ok = true;
    for (const Restriction* r : checks[depth])
      if (!r->holds()) { ok = false; break; }
    if (!ok) continue;
    if (depth + 1 < n) {
      ++depth;
      continue;
    }
    indices_.insert(indices_.end(), current.begin(), current.end());
    if (++count_ > kMaxConfigurations)
      throw Error(ExitCode::Usage, fmt::format("space {}: more than {} valid configurations; add restrictions or "
                                               "fewer values", origin, kMaxConfigurations));
  }
  if (count_ == 0) {
    std::string list;
    for (const auto& r : restrictions_) list += fmt::format("\n  {}", r);
    throw Error(ExitCode::Usage, fmt::format("space {}: the restrictions exclude every one of the {:.0f} configurations:{}",
                                             origin, cartesian_size(), list));
  }
}

double SearchSpace::cartesian_size() const {
  double product = 1;
  for (const auto& p : parameters_) product *= static_cast<double>(p.values.size());
  return product;
}

std::string SearchSpace::key(ConfigView c) const {
  std::string k;
  for (std::size_t p = 0; p < parameters_.size(); ++p) {
    if (p) k += ',';
    k += parameters_[p].name;
    k += '=';
    k += parameters_[p].text[c[p]];
  }
  return k;
}

nlohmann::ordered_json SearchSpace::to_json(ConfigView c) const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t p = 0; p < parameters_.size(); ++p) {
    const Parameter& q = parameters_[p];
    j[q.name] = q.labels.empty() ? nlohmann::ordered_json::parse(q.text[c[p]]) : q.labels[c[p]];
  }
  return j;
}

std::size_t SearchSpace::find(const std::vector<double>& values) const {
  if (values.size() != parameters_.size()) return npos;
  std::vector<std::uint16_t> want(values.size());
  for (std::size_t p = 0; p < values.size(); ++p) {
    const auto& vs = parameters_[p].values;
    std::size_t i = 0;
    while (i < vs.size() && vs[i] != values[p]) ++i;
    if (i == vs.size()) return npos;
    want[p] = static_cast<std::uint16_t>(i);
  }
  // Configurations are in lexicographic order of their indices: binary search.
  std::size_t lo = 0, hi = count_;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    ConfigView c = config(mid);
    if (std::lexicographical_compare(c.begin(), c.end(), want.begin(), want.end())) lo = mid + 1;
    else hi = mid;
  }
  if (lo < count_) {
    ConfigView c = config(lo);
    if (std::equal(c.begin(), c.end(), want.begin())) return lo;
  }
  return npos;
}

nlohmann::ordered_json SearchSpace::definition() const {
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& p : parameters_) {
    nlohmann::ordered_json vs = nlohmann::ordered_json::array();
    if (!p.labels.empty()) vs = p.labels;
    else
      for (const auto& t : p.text) vs.push_back(nlohmann::ordered_json::parse(t));
    params[p.name] = vs;
  }
  return {{"parameters", params}, {"restrictions", restrictions_}};
}

std::string SearchSpace::fingerprint() const {
  if (!listed_) return definition().dump();
  // A listed space is its parameters and the list itself.
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint16_t i : indices_) h = (h ^ i) * 1099511628211ull;
  return definition().dump() + fmt::format(" listed {} {:016x}", count_, h);
}

}  // namespace rpl::autotune
