#pragma once
// A value a document may lack: the number, or JSON null (schemas/ type these ["number", "null"]).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rpl {

inline nlohmann::json json_or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// A number a tool wrote as a JSON number or as text ("12.5"; read as std::stod reads it), or nullopt for anything
// else. Callers choose what a missing value means.
inline std::optional<double> json_number(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      return std::stod(v.get<std::string>());
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace rpl
