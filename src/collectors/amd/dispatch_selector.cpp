#include "collectors/amd/dispatch_selector.hpp"

#include "support/errors.hpp"

namespace rpl::collectors::amd {

DispatchSelector::DispatchSelector(const std::string& pattern, uint64_t k) : regex_(pattern, "kernel pattern"), k_(k) {
  if (k == 0) throw Error(ExitCode::Usage, "dispatch index must be 1 or more (the K-th launch, counted from 1)");
}

bool DispatchSelector::on_launch(const std::string& mangled, const std::string& demangled) {
  if (done_) return false;
  if (!target_) {
    if (!regex_.search(demangled) && !regex_.search(mangled)) return false;
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

std::optional<std::size_t> find_kernel_symbol(const std::string& captured_symbol,
                                              const std::vector<std::string>& available) {
  for (std::size_t i = 0; i < available.size(); ++i)
    if (available[i] == captured_symbol) return i;
  const std::string kernel = kernel_name_from_symbol(captured_symbol);
  for (std::size_t i = 0; i < available.size(); ++i)
    if (kernel_name_from_symbol(available[i]) == kernel) return i;
  return std::nullopt;
}

}  // namespace rpl::collectors::amd
