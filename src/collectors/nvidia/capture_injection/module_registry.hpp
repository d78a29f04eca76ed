#pragma once
// Cubins the driver loaded, kept (copied inside CUPTI's module-loaded callback, the only moment the bytes are
// available) when they hold a kernel the capture may want. Later, a launched function is tied to exactly one
// of them: by its mangled name and, where several cubins define that name, by checking which one the
// function's module really is.
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "capture/elf_symbols.hpp"
#include "support/user_regex.hpp"

namespace rpl::cuda_capture {

struct KeptModule {
  uint32_t module_id = 0;
  std::vector<std::byte> cubin;
  std::vector<capture::ElfSymbol> symbols;
  std::unordered_set<std::string> functions;  // mangled kernel names
};

// True when `mangled` or its demangled form matches.
bool kernel_name_matches(const UserRegex& pattern, const std::string& mangled);

class ModuleRegistry {
 public:
  explicit ModuleRegistry(const UserRegex* pattern) : pattern_(pattern) {}

  // From the module-loaded callback. Keeps a copy only when some kernel in it matches the pattern.
  void on_module_loaded(uint32_t module_id, const void* cubin, std::size_t size, bool verbose);

  // The kept cubin that `module` was loaded from, given the launched kernel's mangled name; nullptr when no
  // kept cubin defines that name. `why` explains an ambiguous or failed choice.
  const KeptModule* find(const std::string& mangled, CUmodule module, std::string* why) const;

  std::size_t seen() const { return seen_; }
  std::size_t kept() const { return modules_.size(); }

 private:
  const UserRegex* pattern_;
  mutable std::mutex mutex_;
  std::deque<KeptModule> modules_;  // in load order; a deque, so kept references stay valid as modules load
  std::size_t seen_ = 0;
};

}  // namespace rpl::cuda_capture
