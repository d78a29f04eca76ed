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

}  // namespace rpl::capture
