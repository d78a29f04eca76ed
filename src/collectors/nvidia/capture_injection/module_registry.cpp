#include "collectors/nvidia/capture_injection/module_registry.hpp"

#include <cstdio>
#include <cstring>

#include <fmt/core.h>

#include "collectors/nvidia/cuda_code_index.hpp"
#include "support/demangle.hpp"

namespace rpl::cuda_capture {

bool kernel_name_matches(const UserRegex& pattern, const std::string& mangled) {
  return pattern.search(mangled) || pattern.search(demangle(mangled));
}

void ModuleRegistry::on_module_loaded(uint32_t module_id, const void* cubin, std::size_t size, bool verbose) {
  if (!cubin || size == 0) return;
  std::span<const std::byte> bytes(static_cast<const std::byte*>(cubin), size);
  std::string note;
  bool readable = false;
  auto wanted = [&](const std::unordered_set<std::string>& kernels) {
    readable = true;
    for (const auto& name : kernels)
      if (kernel_name_matches(*pattern_, name)) return true;
    return false;
  };
  auto cubins = collectors::nvidia::cubins_of_image(bytes, arch_, &note, wanted);
  std::lock_guard<std::mutex> lock(mutex_);
  ++seen_;
  if (!readable) {
    ++unreadable_;
    if (verbose) std::fprintf(stderr, "rpl-capture: module %u: %s; ignored\n", module_id, note.c_str());
    return;
  }
  for (auto& c : cubins) {
    if (verbose)
      std::fprintf(stderr, "rpl-capture: module %u (%s, %zu bytes, %zu kernels) holds a matching kernel; kept\n",
                   module_id, c.origin.c_str(), c.cubin.size(), c.kernels.size());
    modules_.push_back({module_id, std::move(c.cubin), std::move(c.symbols), std::move(c.kernels), std::move(c.origin)});
  }
}

const KeptModule* ModuleRegistry::add_from_image(const std::string& mangled, std::span<const std::byte> image,
                                                 std::string* why) {
  std::string note;
  auto cubins = collectors::nvidia::cubins_of_image(image, arch_, &note);
  for (auto& c : cubins) {
    if (!c.kernels.count(mangled)) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    modules_.push_back({0, std::move(c.cubin), std::move(c.symbols), std::move(c.kernels),
                        c.origin + ", taken from the image its loading call received"});
    return &modules_.back();
  }
  if (why)
    *why = cubins.empty() ? note
                          : fmt::format("its image ({}) does not define the kernel", cubins.front().origin);
  return nullptr;
}

const KeptModule* ModuleRegistry::find(const std::string& mangled, CUmodule module, std::string* why) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<const KeptModule*> candidates;
  for (const auto& m : modules_)
    if (m.functions.count(mangled)) candidates.push_back(&m);
  if (candidates.size() <= 1) return candidates.empty() ? nullptr : candidates.front();
  // Several cubins define this kernel: the right one is the cubin whose every kernel the launched function's
  // module also holds, with the same count.
  unsigned int count = 0;
  bool have_count = module && cuModuleGetFunctionCount(&count, module) == CUDA_SUCCESS;
  std::vector<const KeptModule*> fitting;
  for (const KeptModule* m : candidates) {
    if (have_count && count != m->functions.size()) continue;
    bool all = module != nullptr;
    for (const auto& name : m->functions) {
      CUfunction f = nullptr;
      if (!all || cuModuleGetFunction(&f, module, name.c_str()) != CUDA_SUCCESS) {
        all = false;
        break;
      }
    }
    if (all) fitting.push_back(m);
  }
  auto same_bytes = [](const KeptModule* a, const KeptModule* b) { return a->cubin == b->cubin; };
  if (!fitting.empty()) {
    for (const KeptModule* m : fitting)
      if (!same_bytes(m, fitting.front()) && why)
        *why = "several different cubins fit the launched kernel's module; the first loaded was taken";
    return fitting.front();
  }
  if (why) *why = "several cubins define the kernel and none could be tied to its module; the last loaded was taken";
  return candidates.back();
}

}  // namespace rpl::cuda_capture
