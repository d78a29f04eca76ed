#pragma once
// Regular expressions typed by users (--kernel, --what-if, capture --kernel, autotune --objective-regex), matched against names that
// come from traces and binaries (kernel names can be tens of thousands of characters). RE2 guarantees
// time linear in the name and a bounded stack, so no pattern/name pair can hang or crash the tool, unlike
// std::regex (recursive backtracking). Syntax: RE2's (Perl-like; no backreferences or lookaround).
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace rpl {

class UserRegex {
 public:
  // Throws Error(Usage) naming `option` and the pattern when the pattern is not valid RE2 syntax.
  UserRegex(const std::string& pattern, std::string_view option);
  ~UserRegex();
  UserRegex(UserRegex&&) noexcept;
  UserRegex& operator=(UserRegex&&) noexcept;

  // True when the pattern matches anywhere in `text` (search, not full match).
  bool search(std::string_view text) const;
  // The number of capture groups in the pattern.
  int capture_groups() const;
  // The first capture group of the first match in `text` (search); empty when nothing matches.
  std::optional<std::string> first_group(std::string_view text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::unique_ptr<re2::RE2> re_;
};

// The error text for `pattern`, or "" when it compiles (for checks before a long run starts).
std::string user_regex_error(const std::string& pattern);

}  // namespace rpl
