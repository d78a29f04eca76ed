#include "autotune/kernel_tuner_t4.hpp"

#include <fmt/core.h>

#include <map>

#include "support/errors.hpp"

namespace rpl::autotune {

bool is_t4_results(const nlohmann::json& doc) {
  // Other files have "results" too (this repository's measured spaces: rows of parameters): a T4 file's first
  // result has a "configuration".
  return doc.is_object() && doc.contains("results") && doc["results"].is_array() && !doc.contains("cache") &&
         !doc["results"].empty() && doc["results"][0].is_object() && doc["results"][0].contains("configuration");
}

nlohmann::json cache_of_t4_results(const std::string& text, const std::string& path, const std::string& flag) {
  // Parsed again with its keys in order: a T4 file lists no parameter order but each configuration's.
  const auto t4 = nlohmann::ordered_json::parse(text, nullptr, false);
  const auto fail = [&](const std::string& what) {
    return Error(ExitCode::InputCorrupt, fmt::format("{} {}: Kernel Tuner T4 results file: {}", flag, path, what));
  };
  if (t4.is_discarded() || !t4.contains("results") || !t4["results"].is_array()) throw fail("not JSON with \"results\"");
  const auto& results = t4["results"];
  if (results.empty()) throw fail("no results");
  nlohmann::json keys = nlohmann::json::array();
  const auto& first = results[0];
  if (!first.is_object() || !first.contains("configuration") || !first["configuration"].is_object() ||
      first["configuration"].empty())
    throw fail("result 0 has no configuration");
  for (const auto& [name, _] : first["configuration"].items()) keys.push_back(name);
  std::string objective = "time";
  if (first.contains("objectives") && first["objectives"].is_array() && !first["objectives"].empty() &&
      first["objectives"][0].is_string())
    objective = first["objectives"][0].get<std::string>();
  static const std::map<std::string, std::string> kFailure = {{"constraints", "InvalidConfig"},
                                                              {"compile", "CompilationFailedConfig"},
                                                              {"runtime", "RuntimeFailedConfig"},
                                                              {"timeout", "RuntimeFailedConfig"},
                                                              {"correctness", "RuntimeFailedConfig"}};
  nlohmann::json cache = nlohmann::json::object();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (!r.is_object() || !r.contains("configuration") || !r["configuration"].is_object())
      throw fail(fmt::format("result {} has no configuration", i));
    nlohmann::json entry = nlohmann::json::object();
    std::string key;
    for (const auto& k : keys) {
      const std::string name = k.get<std::string>();
      if (!r["configuration"].contains(name)) throw fail(fmt::format("result {} has no value for {}", i, name));
      const auto& v = r["configuration"][name];
      entry[name] = nlohmann::json::parse(v.dump());
      key += (key.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
    }
    const std::string invalidity = r.value("invalidity", std::string("correct"));
    if (invalidity == "correct") {
      if (r.contains("measurements") && r["measurements"].is_array())
        for (const auto& m : r["measurements"])
          if (m.is_object() && m.contains("name") && m["name"].is_string() && m.contains("value") && m["value"].is_number())
            entry[m["name"].get<std::string>()] = m["value"].get<double>();
    } else {
      const auto it = kFailure.find(invalidity);
      if (it == kFailure.end()) throw fail(fmt::format("result {} has invalidity \"{}\"", i, invalidity));
      entry["time"] = it->second;
      entry[objective] = it->second;
    }
    cache[key] = std::move(entry);
  }
  return {{"tune_params_keys", keys}, {"objective", objective}, {"cache", cache}};
}

}  // namespace rpl::autotune
