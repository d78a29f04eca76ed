#pragma once
// What the CUDA capture library knows about the code the application put on the GPU, as pure bookkeeping (no
// CUDA calls, so it is tested without a GPU): the cubins an image contributes (a cubin itself, a fat binary's
// member for the device's architecture, decompressed) with their kernels, and which driver call loaded each
// module and library, so that a kernel whose cubin could not be had is reported with the path that loaded it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "capture/elf_symbols.hpp"

namespace rpl::collectors::nvidia {

using capture::ElfSymbol;

struct IndexedCubin {
  std::vector<std::byte> cubin;
  std::vector<ElfSymbol> symbols;
  std::unordered_set<std::string> kernels;  // mangled names of its __global__ functions, any linkage
  std::string origin;                       // "cubin", "fatbin member sm_90 (zstd)", ...
};

// The kernels (entry points, any linkage) of a cubin's symbol table; where no symbol carries the entry flag,
// every function in a .text.<name> section.
std::unordered_set<std::string> cuda_kernel_names(const std::vector<ElfSymbol>& symbols);

// The cubin(s) the driver runs for `image` on a device of compute capability `arch` (major*10+minor; 0: every
// cubin member): the image itself when it is a cubin; a fat binary's selected member, decompressed; none for
// PTX or an unreadable image, with the reason in `note`.
// `keep`, where given, decides from a cubin's kernel names whether its bytes are copied (those it refuses are
// left out, and counted as "seen" by the caller only).
std::vector<IndexedCubin> cubins_of_image(std::span<const std::byte> image, uint32_t arch, std::string* note,
                                          const std::function<bool(const std::unordered_set<std::string>&)>& keep = {});

// The PTX the driver would JIT-compile for `image` on a device of compute capability `arch`: the image itself
// when it is PTX (up to its NUL), a fat binary's newest PTX member not newer than `arch`, decompressed. Empty
// (with the reason in `note`) when there is none.
std::vector<std::byte> ptx_of_image(std::span<const std::byte> image, uint32_t arch, std::string* note);

// One driver call that put code on the GPU.
struct CodeLoad {
  std::string api;         // "cuModuleLoadData", "cuLibraryLoadData", ... ("" when unknown)
  std::string image_kind;  // "cubin", "fatbin", "PTX", ...
  uint64_t image_bytes = 0;
  std::string file;        // cuModuleLoad / cuLibraryLoadFromFile
  std::vector<std::byte> image;       // a copy, where the caller's buffer may go away after the call
  const std::byte* static_image = nullptr;  // where the image lies in a loaded object file (stays mapped)
  std::span<const std::byte> bytes() const {
    return static_image ? std::span<const std::byte>(static_image, image_bytes) : std::span<const std::byte>(image);
  }
};

// Handles (CUmodule, CUlibrary, CUkernel, CUfunction as opaque pointers) tied to the call that loaded them.
class CodeLoadBook {
 public:
  void module_loaded(const void* module, CodeLoad load);
  void library_loaded(const void* library, CodeLoad load);
  void library_unloaded(const void* library);
  void module_unloaded(const void* module);
  // cuLibraryGetModule / cuLibraryGetKernel: the module or kernel belongs to that library.
  void library_owns(const void* library, const void* module_or_kernel);
  // cuKernelGetFunction: a kernel handle and the function (and its module) it gave.
  void kernel_function(const void* kernel, const void* function, const void* module);

  // The load that `module` came from (directly or through its library); nullptr when no call seen loaded it.
  const CodeLoad* load_of_module(const void* module) const;
  // One line: "loaded by cuLibraryLoadData (fatbin, 1234 bytes)" or why nothing is known.
  std::string describe_module(const void* module) const;
  std::size_t loads() const;

 private:
  mutable std::mutex mutex_;
  std::map<const void*, CodeLoad> modules_, libraries_;
  std::map<const void*, const void*> owner_;  // module or kernel -> library
};

}  // namespace rpl::collectors::nvidia
