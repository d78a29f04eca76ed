#pragma once
// Blanks off both ends of a field or line of a text input (counter files, tool outputs, catalogs); the line
// readers share it. The view points into `text`.
#include <string_view>

namespace rpl {

inline constexpr std::string_view kBlanks = " \t\r";
inline constexpr std::string_view kWhitespace = " \t\n\v\f\r";  // std::isspace's set in the C locale

inline std::string_view trim(std::string_view text, std::string_view blanks = kBlanks) {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

}  // namespace rpl
