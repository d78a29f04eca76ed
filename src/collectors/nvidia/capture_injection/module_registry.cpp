#include "collectors/nvidia/capture_injection/module_registry.hpp"

#include <cstdio>
#include <cstring>

#include "support/demangle.hpp"

namespace rpl::cuda_capture {

bool kernel_name_matches(const UserRegex& pattern, const std::string& mangled) {
  return pattern.search(mangled) || pattern.search(demangle(mangled));
}

void ModuleRegistry::on_module_loaded(uint32_t module_id, const void* cubin, std::size_t size, bool verbose) {
  if (!cubin || size == 0) return;
  std::span<const std::byte> bytes(static_cast<const std::byte*>(cubin), size);
  KeptModule m;
  m.module_id = module_id;
  try {
    m.symbols = capture::read_elf_symbols(bytes);
  } catch (const capture::ElfFormatError& e) {
    if (verbose) std::fprintf(stderr, "rpl-capture: module %u: not an ELF cubin (%s); ignored\n", module_id, e.what());
    return;
  }
  bool wanted = false;
  for (const auto& s : m.symbols) {
    if (!s.is_function() || s.binding == 0 || s.section.rfind(".text.", 0) != 0) continue;
    m.functions.insert(s.name);
    wanted = wanted || kernel_name_matches(*pattern_, s.name);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++seen_;
  if (!wanted) return;
  m.cubin.assign(bytes.begin(), bytes.end());
  if (verbose)
    std::fprintf(stderr, "rpl-capture: module %u (%zu bytes, %zu kernels) holds a matching kernel; kept\n", module_id,
                 size, m.functions.size());
  modules_.push_back(std::move(m));
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
