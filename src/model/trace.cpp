#include "model/trace.hpp"

namespace rpl {

Index StringTable::intern(std::string_view s) {
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  Index id = static_cast<Index>(strings_.size());
  strings_.emplace_back(s);
  ids_.emplace(strings_.back(), id);
  return id;
}

bool is_runtime_kernel(std::string_view name) {
  // ROCclr's blit/fill kernels (hipMemcpy/hipMemset implemented as kernels), HSA/HIP runtime helpers.
  static constexpr std::string_view kPrefixes[] = {"__amd_rocclr_", "amd_rocclr_", "__hip_", "hsa_"};
  for (auto p : kPrefixes)
    if (name.substr(0, p.size()) == p) return true;
  return false;
}

}  // namespace rpl
