#pragma once
// UUIDs as rocpd uses them for process GUIDs: lowercase "8-4-4-4-12" hex text.
#include <cstdint>
#include <string>
#include <string_view>

namespace rpl::rocpd {

// A fresh UUIDv7 (RFC 9562): 48-bit Unix time in ms, then random bits, version 7, variant 0b10.
std::string make_uuid_v7();
// The same layout from given parts (deterministic; for tests and derived GUIDs).
std::string format_uuid_v7(uint64_t unix_ms, uint64_t random_a, uint64_t random_b);

// True for "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" with lowercase hex digits.
bool is_uuid_text(std::string_view text);
// True for the table-suffix form "xxxxxxxx_xxxx_xxxx_xxxx_xxxxxxxxxxxx" (lowercase hex).
bool is_uuid_suffix(std::string_view text);

}  // namespace rpl::rocpd
