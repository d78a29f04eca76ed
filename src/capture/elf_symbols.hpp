#pragma once
// The symbol table of a GPU code object (a CUDA cubin or an AMD code object, both ELF64 little-endian), read
// directly from its bytes: which kernels it holds and which variables. Used by captures to tie a launched
// kernel to its code object and to find the module's globals. No libelf (the capture library is loaded into
// applications, so it keeps its dependencies few).
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace rpl::capture {

struct ElfSymbol {
  std::string name;
  std::string section;  // name of the section it is defined in ("" when undefined / absolute)
  uint64_t size = 0;
  uint8_t type = 0;     // STT_FUNC (2), STT_OBJECT (1), ...
  uint8_t binding = 0;  // STB_LOCAL (0), STB_GLOBAL (1), STB_WEAK (2)
  uint8_t other = 0;    // st_other: in a CUDA cubin, bit 0x10 (STO_CUDA_ENTRY) marks a kernel entry point
  bool is_function() const { return type == 2; }
  // A __global__ function of a cubin, whatever its linkage: kernels in an anonymous namespace or declared static
  // are STB_LOCAL, like the non-inlined __device__ helpers, which lack the entry bit.
  bool is_cuda_kernel() const { return type == 2 && (other & 0x10) != 0 && section.rfind(".text.", 0) == 0; }
  bool is_object() const { return type == 1; }
};

class ElfFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every named symbol of .symtab. Throws ElfFormatError when the bytes are not a well-formed ELF64 LE image.
std::vector<ElfSymbol> read_elf_symbols(std::span<const std::byte> image);

// nvcc names what a file keeps to itself (an anonymous namespace, a file-local variable of a header it includes)
// inside namespaces _INTERNAL_<hash>_<n>_<file>_<hash> and _GLOBAL__N__<hash>_<n>_<file>_<hash>, with hashes of
// the translation unit that differ between two builds of the same source (another folder, other flags). The name
// with those hashes blanked, the same for the same variable in every build.
std::string without_translation_unit_hashes(const std::string& name);

// The variable of `symbols` that is `name` in another build of the same source: `name` itself if present, else
// the only object whose name is the same but for the translation-unit hashes; "" when none or several.
std::string same_variable_in_build(const std::vector<ElfSymbol>& symbols, const std::string& name);

}  // namespace rpl::capture
