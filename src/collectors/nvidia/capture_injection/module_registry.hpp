#pragma once
// Cubins the driver loaded, kept (copied inside CUPTI's module-loaded callback, the only moment the bytes are
// available) when they hold a kernel the capture may want. Later, a launched function is tied to exactly one
// of them: by its mangled name and, where several cubins define that name, by checking which one the
// function's module really is.
#include <cuda.h>

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <span>
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
  std::unordered_set<std::string> functions;  // mangled kernel names, of any linkage (entry points only)
  std::string origin;                         // "cubin", "fatbin member sm_90 (zstd)", ...
};

// True when `mangled` or its demangled form matches.
bool kernel_name_matches(const UserRegex& pattern, const std::string& mangled);

class ModuleRegistry {
 public:
  explicit ModuleRegistry(const UserRegex* pattern) : pattern_(pattern) {}

  // The device's compute capability (major*10+minor), to pick a fat binary's member; 0 until known.
  void set_arch(uint32_t arch) { arch_ = arch; }
  uint32_t arch() const { return arch_; }

  // From the module-loaded callback: the image CUPTI hands over (a cubin; a fat binary is opened and its member
  // for the device taken). Keeps a copy only when some kernel in it matches the pattern.
  void on_module_loaded(uint32_t module_id, const void* cubin, std::size_t size, bool verbose);

  // When no kept cubin defines `mangled`: the image the module's loading call received (a cubin or fat
  // binary), indexed now. nullptr when it does not hold the kernel either; `why` says what was found.
  const KeptModule* add_from_image(const std::string& mangled, std::span<const std::byte> image, std::string* why);

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
  std::size_t unreadable_ = 0;  // module images that gave no cubin
  std::atomic<uint32_t> arch_{0};

 public:
  std::size_t unreadable() const { return unreadable_; }
};

}  // namespace rpl::cuda_capture
