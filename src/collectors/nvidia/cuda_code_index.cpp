#include "collectors/nvidia/cuda_code_index.hpp"

#include <fmt/core.h>

#include "collectors/nvidia/cuda_fatbin.hpp"

namespace rpl::collectors::nvidia {

std::unordered_set<std::string> cuda_kernel_names(const std::vector<ElfSymbol>& symbols) {
  std::unordered_set<std::string> names;
  for (const auto& s : symbols)
    if (s.is_cuda_kernel()) names.insert(s.name);
  if (!names.empty()) return names;
  // A cubin whose writer set no entry flag: every function of its own .text section (device helpers included,
  // which at worst makes a kernel-count comparison inconclusive).
  for (const auto& s : symbols)
    if (s.is_function() && s.section.rfind(".text.", 0) == 0) names.insert(s.name);
  return names;
}

namespace {
using KeepFn = std::function<bool(const std::unordered_set<std::string>&)>;
// Appends the cubin to `out` unless `keep` refuses its kernels (then its bytes are never copied).
void index_cubin(std::span<const std::byte> bytes, std::string origin, const KeepFn& keep, std::vector<IndexedCubin>& out) {
  IndexedCubin c;
  c.symbols = capture::read_elf_symbols(bytes);
  c.kernels = cuda_kernel_names(c.symbols);
  if (keep && !keep(c.kernels)) return;
  c.cubin.assign(bytes.begin(), bytes.end());
  c.origin = std::move(origin);
  out.push_back(std::move(c));
}
}  // namespace

std::vector<IndexedCubin> cubins_of_image(std::span<const std::byte> image, uint32_t arch, std::string* note,
                                          const KeepFn& keep) {
  std::vector<IndexedCubin> out;
  auto say = [&](std::string s) {
    if (note) *note = std::move(s);
  };
  CodeImageKind kind = classify_code_image(image.first(std::min<std::size_t>(image.size(), 64)));
  try {
    if (kind == CodeImageKind::Cubin) {
      index_cubin(image, "cubin", keep, out);
      return out;
    }
    if (kind != CodeImageKind::Fatbin) {
      say(fmt::format("the image is {}, not a cubin or fat binary", code_image_kind_name(kind)));
      return out;
    }
    auto members = read_fatbin(image);
    std::vector<const FatbinMember*> chosen;
    if (arch) {
      if (const FatbinMember* m = select_cubin(members, arch)) chosen.push_back(m);
    } else {
      for (const auto& m : members)
        if (m.kind == FatbinMember::Kind::Elf) chosen.push_back(&m);
    }
    if (chosen.empty()) {
      std::string archs;
      for (const auto& m : members)
        archs += fmt::format("{}{}_{}", archs.empty() ? "" : ", ", m.kind == FatbinMember::Kind::Ptx ? "compute" : "sm", m.arch);
      say(fmt::format("the fat binary holds no cubin for sm_{} (members: {}); the driver JIT-compiles its PTX", arch,
                      archs.empty() ? "none" : archs));
      return out;
    }
    for (const FatbinMember* m : chosen)
      index_cubin(fatbin_member_bytes(*m),
                  fmt::format("fatbin member sm_{}{}", m->arch, m->compression.empty() ? "" : " (" + m->compression + ")"),
                  keep, out);
  } catch (const std::exception& e) {
    say(fmt::format("the {} image cannot be read: {}", code_image_kind_name(kind), e.what()));
  }
  return out;
}

std::vector<std::byte> ptx_of_image(std::span<const std::byte> image, uint32_t arch, std::string* note) {
  CodeImageKind kind = classify_code_image(image.first(std::min<std::size_t>(image.size(), 64)));
  try {
    if (kind == CodeImageKind::Ptx) {
      auto size = code_image_size(image.data(), image.size());
      std::size_t n = size ? *size - 1 : image.size();  // without the NUL
      return {image.begin(), image.begin() + std::ptrdiff_t(n)};
    }
    if (kind == CodeImageKind::Fatbin) {
      auto members = read_fatbin(image);
      if (const FatbinMember* m = select_ptx(members, arch)) return fatbin_member_bytes(*m);
      if (note) *note = fmt::format("the fat binary holds no PTX for compute_{} or older", arch);
      return {};
    }
  } catch (const std::exception& e) {
    if (note) *note = fmt::format("the {} image cannot be read: {}", code_image_kind_name(kind), e.what());
    return {};
  }
  if (note) *note = fmt::format("the image is {}: it holds no PTX", code_image_kind_name(kind));
  return {};
}

void CodeLoadBook::module_loaded(const void* module, CodeLoad load) {
  std::lock_guard<std::mutex> lock(mutex_);
  modules_[module] = std::move(load);
}

void CodeLoadBook::library_loaded(const void* library, CodeLoad load) {
  std::lock_guard<std::mutex> lock(mutex_);
  libraries_[library] = std::move(load);
}

void CodeLoadBook::library_unloaded(const void* library) {
  std::lock_guard<std::mutex> lock(mutex_);
  libraries_.erase(library);
  std::erase_if(owner_, [&](const auto& kv) { return kv.second == library; });
}

void CodeLoadBook::module_unloaded(const void* module) {
  std::lock_guard<std::mutex> lock(mutex_);
  modules_.erase(module);
  owner_.erase(module);
}

void CodeLoadBook::library_owns(const void* library, const void* module_or_kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  owner_[module_or_kernel] = library;
}

void CodeLoadBook::kernel_function(const void* kernel, const void* function, const void* module) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = owner_.find(kernel);
  if (it == owner_.end()) return;
  const void* library = it->second;
  owner_[function] = library;
  if (module) owner_[module] = library;
}

const CodeLoad* CodeLoadBook::load_of_module(const void* module) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto m = modules_.find(module); m != modules_.end()) return &m->second;
  if (auto o = owner_.find(module); o != owner_.end())
    if (auto l = libraries_.find(o->second); l != libraries_.end()) return &l->second;
  return nullptr;
}

std::string CodeLoadBook::describe_module(const void* module) const {
  const CodeLoad* load = load_of_module(module);
  if (!load)
    return fmt::format("its module was loaded by no driver call the capture library saw ({} loads seen: a fat "
                       "binary the CUDA runtime registered and loaded before the capture library was injected, or a "
                       "library whose cuLibraryGetModule/cuLibraryGetKernel was never called)",
                       loads());
  std::string what = fmt::format("loaded by {} ({}", load->api.empty() ? "an unknown call" : load->api, load->image_kind);
  if (load->image_bytes) what += fmt::format(", {} bytes", load->image_bytes);
  if (!load->file.empty()) what += ", file " + load->file;
  return what + ")";
}

std::size_t CodeLoadBook::loads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.size() + libraries_.size();
}

}  // namespace rpl::collectors::nvidia
