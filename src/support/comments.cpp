#include "support/comments.hpp"

#include <cctype>

namespace rpl {
namespace {

// Whether the quote at `i` separates digits (`1'000'000`): inside a number, whose token starts with a digit.
bool digit_separator(const std::string& text, std::size_t i) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '\'' || c == '.'; };
  if (i == 0 || i + 1 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i - 1])) ||
      !std::isxdigit(static_cast<unsigned char>(text[i + 1])))
    return false;
  std::size_t start = i;
  while (start > 0 && word(text[start - 1])) --start;
  return std::isdigit(static_cast<unsigned char>(text[start]));
}

}  // namespace

std::string blank_comments(const std::string& text) {
  std::string out = text;
  for (std::size_t i = 0; i < out.size();) {
    if (out[i] == '\'' && digit_separator(out, i)) {
      ++i;
    } else if (out[i] == '"' || out[i] == '\'') {
      const char quote = out[i++];
      while (i < out.size() && out[i] != quote && out[i] != '\n') i += out[i] == '\\' ? 2 : 1;
      ++i;
    } else if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      const std::size_t close = out.find("*/", i + 2);
      const std::size_t end = close == std::string::npos ? out.size() : close + 2;
      for (; i < end; ++i)
        if (out[i] != '\n') out[i] = ' ';
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace rpl
