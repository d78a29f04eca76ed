#pragma once
// Overflow-safe arithmetic for values that come from input files (times, sizes, offsets): a hostile or
// damaged file must give an error, never a wrapped number.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace rpl {

// The largest timestamp the reader accepts (about 146 years in ns): the difference or sum of any two
// accepted times fits in int64_t, so durations and spans never overflow once the reader has checked.
inline constexpr int64_t kMaxTimeNs = int64_t{1} << 62;

inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, clamped to the int64_t range (for totals that must stay ordered rather than wrap).
inline int64_t saturating_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

// end - start for an interval, clamped to [0, INT64_MAX]: never negative, never wrapped.
inline int64_t span_ns(int64_t start, int64_t end) {
  if (end <= start) return 0;
  int64_t r;
  if (__builtin_sub_overflow(end, start, &r)) return std::numeric_limits<int64_t>::max();
  return r;
}

// d as Int, truncated toward zero as a cast does, when it lies in [Int's min, 2^digits); nullopt for NaN, infinities
// and values beyond, whose cast would be undefined behaviour. Both bounds are exact doubles (0 or minus a power of
// two, and a power of two).
template <class Int>
std::optional<Int> checked_double_to(double d) {
  static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
  const double lo = static_cast<double>(std::numeric_limits<Int>::min());
  const double hi = std::ldexp(1.0, std::numeric_limits<Int>::digits);
  if (!(d >= lo && d < hi)) return std::nullopt;
  return static_cast<Int>(d);
}

// True when [offset, offset + size) lies within [0, limit), without overflow for any inputs.
inline bool range_within(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

}  // namespace rpl
