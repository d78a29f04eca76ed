#include "collectors/amd/dispatch_selector.hpp"

#include "support/errors.hpp"

namespace rpl::collectors::amd {

DispatchSelector::DispatchSelector(const std::string& pattern, uint64_t k) : k_(k) {
  if (k == 0) throw Error(ExitCode::Usage, "dispatch index must be 1 or more (the K-th launch, counted from 1)");
  try {
    regex_ = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw Error(ExitCode::Usage, "kernel pattern '" + pattern + "' is not a valid regular expression: " + e.what());
  }
}

bool DispatchSelector::on_launch(const std::string& mangled, const std::string& demangled) {
  if (done_) return false;
  if (!target_) {
    if (!std::regex_search(demangled, regex_) && !std::regex_search(mangled, regex_)) return false;
    target_ = mangled;
  } else if (mangled != *target_) {
    return false;
  }
  if (++count_ < k_) return false;
  done_ = true;
  return true;
}

std::string kernel_name_from_symbol(const std::string& symbol_name) {
  constexpr std::string_view suffix = ".kd";
  if (symbol_name.size() > suffix.size() && symbol_name.ends_with(suffix))
    return symbol_name.substr(0, symbol_name.size() - suffix.size());
  return symbol_name;
}

}  // namespace rpl::collectors::amd
