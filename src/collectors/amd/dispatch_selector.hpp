#pragma once
// Which launch to capture: the K-th launch (1-based) of the first kernel whose name matches a regex.
// "First kernel" is the first one launched whose demangled or mangled name matches; from then on only
// launches of that very kernel (same mangled name, whichever code object or device it came from) count.
// Pure logic, free of HSA headers; not thread-safe (the capture tool calls it under its lock).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/user_regex.hpp"

namespace rpl::collectors::amd {

class DispatchSelector {
 public:
  // Throws rpl::Error(Usage) naming the pattern when it is not a valid (RE2) regex or k is 0.
  DispatchSelector(const std::string& pattern, uint64_t k);

  // Called for every kernel launch in submission order. True exactly once: for the launch to capture.
  bool on_launch(const std::string& mangled, const std::string& demangled);

  const std::optional<std::string>& target() const { return target_; }  // mangled name, once chosen
  uint64_t launches_of_target() const { return count_; }
  bool done() const { return done_; }
  uint64_t k() const { return k_; }

 private:
  UserRegex regex_;
  uint64_t k_;
  std::optional<std::string> target_;
  uint64_t count_ = 0;
  bool done_ = false;
};

// An HSA kernel symbol's name ("_Z7add_onePfi.kd", code object v3+) without the descriptor suffix, which
// is the kernel's mangled name.
std::string kernel_name_from_symbol(const std::string& symbol_name);

// The replay's choice of kernel in a loaded code object: the symbol named exactly as captured, or, across
// code-object versions, the same kernel name with or without the ".kd" suffix. Never "the first kernel":
// nullopt when there is no such symbol (the caller lists `available` in its error).
std::optional<std::size_t> find_kernel_symbol(const std::string& captured_symbol,
                                              const std::vector<std::string>& available);

}  // namespace rpl::collectors::amd
