#pragma once
// Quantities as the text and JSON renderers print them; one definition each, so a table and a summary of the
// same value agree.
#include <fmt/core.h>

#include <cstdint>
#include <string>

#include "model/trace.hpp"

namespace rpl::report {

// "512 B", "1.5 KiB": per-kernel sizes (LDS, scratch) that stay below a MiB.
inline std::string small_bytes_text(uint32_t b) {
  return b >= 1024 ? fmt::format("{:.1f} KiB", b / 1024.0) : fmt::format("{} B", b);
}

// "12.3 us" below a millisecond, else "4.56 ms".
inline std::string duration_text(double ns) {
  return ns >= 1e6 ? fmt::format("{:.2f} ms", ns / 1e6) : fmt::format("{:.1f} us", ns / 1e3);
}

// Milliseconds as a JSON number.
inline double to_ms(TimeNs ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace rpl::report
