#pragma once
// A value a document may lack: the number, or JSON null (schemas/ type these ["number", "null"]).
#include <optional>

#include <nlohmann/json.hpp>

namespace rpl {

inline nlohmann::json json_or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace rpl
