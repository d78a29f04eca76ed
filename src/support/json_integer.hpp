#pragma once
// Integers read from JSON that came from outside (traces' JSON columns, rank summaries, capture logs).
// nlohmann's get<Int>() converts a floating-point value with a plain cast, which is undefined behaviour when the
// value is beyond Int's range (1e308 into an int64: a UBSan finding of fuzz_rocpd_sql, issue 19). These accept
// integers in range and floating-point values that hold one exactly (3.0, as some JSON writers print).
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "support/checked_math.hpp"

namespace rpl {

template <class Int>
std::optional<Int> json_integer(const nlohmann::json& v) {
  static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (!std::in_range<Int>(u)) return std::nullopt;
    return static_cast<Int>(u);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (!std::in_range<Int>(i)) return std::nullopt;
    return static_cast<Int>(i);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d != std::trunc(d)) return std::nullopt;  // NaN too; infinities fail the range check
    return checked_double_to<Int>(d);
  }
  return std::nullopt;
}

// The same, or std::out_of_range naming `what` and the value.
template <class Int>
Int json_integer_or_throw(const nlohmann::json& v, const std::string& what) {
  if (auto i = json_integer<Int>(v)) return *i;
  throw std::out_of_range(what + ": " + v.dump() + " is not an integer in range");
}

}  // namespace rpl
