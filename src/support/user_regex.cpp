#include "support/user_regex.hpp"

#include <fmt/core.h>
#include <re2/re2.h>

#include "support/errors.hpp"

namespace rpl {

namespace {

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);  // the error goes into our message instead of RE2's log
  o.set_max_mem(64 << 20);  // ample for any kernel-name pattern; bounds a pathological one
  return o;
}

}  // namespace

UserRegex::UserRegex(const std::string& pattern, std::string_view option)
    : pattern_(pattern), re_(std::make_unique<re2::RE2>(pattern, options())) {
  if (!re_->ok())
    throw Error(ExitCode::Usage,
                fmt::format("{}: invalid regular expression '{}': {}", option, pattern, re_->error()));
}

UserRegex::~UserRegex() = default;
UserRegex::UserRegex(UserRegex&&) noexcept = default;
UserRegex& UserRegex::operator=(UserRegex&&) noexcept = default;

bool UserRegex::search(std::string_view text) const { return RE2::PartialMatch(text, *re_); }

int UserRegex::capture_groups() const { return re_->NumberOfCapturingGroups(); }

std::optional<std::string> UserRegex::first_group(std::string_view text) const {
  std::string group;
  if (re_->NumberOfCapturingGroups() < 1 || !RE2::PartialMatch(text, *re_, &group)) return std::nullopt;
  return group;
}

std::string user_regex_error(const std::string& pattern) {
  re2::RE2 re(pattern, options());
  return re.ok() ? std::string() : re.error();
}

}  // namespace rpl
