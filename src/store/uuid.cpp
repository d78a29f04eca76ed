#include "store/uuid.hpp"

#include <chrono>
#include <random>

namespace rpl::rocpd {

namespace {

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool matches_layout(std::string_view text, char separator) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    bool dash_position = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash_position ? text[i] != separator : !is_lower_hex(text[i])) return false;
  }
  return true;
}

}  // namespace

std::string format_uuid_v7(uint64_t unix_ms, uint64_t random_a, uint64_t random_b) {
  uint8_t bytes[16];
  for (int i = 0; i < 6; ++i) bytes[i] = static_cast<uint8_t>(unix_ms >> (8 * (5 - i)));
  bytes[6] = static_cast<uint8_t>(0x70 | ((random_a >> 8) & 0x0f));  // version 7 + 4 random bits
  bytes[7] = static_cast<uint8_t>(random_a);
  bytes[8] = static_cast<uint8_t>(0x80 | ((random_b >> 56) & 0x3f));  // variant 0b10 + 6 random bits
  for (int i = 9; i < 16; ++i) bytes[i] = static_cast<uint8_t>(random_b >> (8 * (15 - i)));

  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kHex[bytes[i] >> 4];
    text += kHex[bytes[i] & 0x0f];
  }
  return text;
}

std::string make_uuid_v7() {
  auto now = std::chrono::system_clock::now().time_since_epoch();
  auto unix_ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  std::random_device device;
  auto random64 = [&device] { return (static_cast<uint64_t>(device()) << 32) | device(); };
  return format_uuid_v7(unix_ms, random64(), random64());
}

bool is_uuid_text(std::string_view text) { return matches_layout(text, '-'); }
bool is_uuid_suffix(std::string_view text) { return matches_layout(text, '_'); }

}  // namespace rpl::rocpd
